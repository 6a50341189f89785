import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryStore, type MessageOutline } from '../store/history-store.js';
import { SAVE_VIEWS_AFTER_WRITE_UP_TO } from '../store/saved-view-upkeep.js';
import { readSavedView } from '../store/saved-views.js';
import type { StoredSummary } from './active-summary.js';
import {
  HISTORY_OUTLINE_VIEW,
  type HistoryOutline,
  historyOutlineFromJson,
  historyOutlineToJson,
  saveHistoryOutline,
  saveHistoryViews,
} from './history-outline.js';
import { HISTORY_TIMELINE_VIEW, historyTimelineFromJson } from './saved-history-timeline.js';

const agentIds = ['11111111-1111-4111-8111-111111111111', '11111111-1111-4111-8111-111111111111:22222222-2222-4222-8222-222222222222'];
const when = fc.integer({ min: 0, max: 4_102_444_800_000 }).map((ms) => new Date(ms));

const messageOutline: fc.Arbitrary<MessageOutline> = fc.record({
  agentId: fc.constantFrom(...agentIds),
  seq: fc.integer({ min: 1, max: 1_000_000 }),
  role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
  count: fc.option(fc.record({ tokens: fc.integer({ min: 0, max: 200_000 }), exact: fc.boolean(), method: fc.string(), target: fc.constantFrom('openai/gpt-4o', 'anthropic/claude-sonnet-4-5') }), { nil: null }),
  createdAt: when,
  title: fc.option(fc.string(), { nil: null }),
  toolParts: fc.array(fc.record({ partIndex: fc.nat(20), type: fc.constantFrom('tool-call', 'tool-result'), toolCallId: fc.string(), toolName: fc.string() }), { maxLength: 3 }),
});

const summary: fc.Arbitrary<StoredSummary> = fc.record({
  kind: fc.constant('summary'),
  first: fc.record({ agentId: fc.constantFrom(...agentIds), seq: fc.nat() }),
  last: fc.record({ agentId: fc.constantFrom(...agentIds), seq: fc.nat() }),
  data: fc.record({
    text: fc.string(),
    summarizer: fc.constantFrom('digest', 'llm'),
    cost: fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat() }),
    coveredExchanges: fc.nat(),
    tokensBefore: fc.nat(),
    tokensAfter: fc.nat(),
  }),
  createdAt: when,
});

const outline: fc.Arbitrary<HistoryOutline> = fc.record({
  meta: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
  messages: fc.array(messageOutline, { maxLength: 30 }),
  summary: fc.option(summary, { nil: undefined }),
});

describe('the saved history outline', () => {
  it('reads back exactly what was saved, through JSON text', () => {
    fc.assert(
      fc.property(outline, (original) => {
        expect(historyOutlineFromJson(JSON.parse(JSON.stringify(historyOutlineToJson(original))))).toEqual(original);
      }),
    );
  });

  it('anything else is refused as a whole, so that the store is read instead', () => {
    const valid = historyOutlineToJson({
      meta: { model: 'gpt-4o' },
      messages: [
        { agentId: agentIds[0] as string, seq: 1, role: 'user', count: null, createdAt: new Date(0), title: 'hi', toolParts: [] },
        { agentId: agentIds[0] as string, seq: 2, role: 'assistant', count: null, createdAt: new Date(0), title: null, toolParts: [{ partIndex: 0, type: 'tool-call', toolCallId: 'c', toolName: 'read' }] },
      ],
      summary: undefined,
    });
    expect(historyOutlineFromJson(valid)?.messages).toHaveLength(2);
    const changed = (change: (json: ReturnType<typeof historyOutlineToJson>) => void) => {
      const copy = structuredClone(valid);
      change(copy);
      return copy;
    };
    const refused = [
      null,
      [],
      'text',
      changed((json) => (json.messages[0]![2] = 'robot' as never)),
      changed((json) => (json.messages[0]![1] = '1' as never)),
      changed((json) => (json.messages[0]![0] = 2)),
      changed((json) => json.messages[0]!.pop()),
      changed((json) => (json.messages[1]![9] = [[0, 'tool-use', 'c', 'read']] as never)),
      changed((json) => (json.messages[1] = { seq: 2 } as never)),
      changed((json) => (json.summary = { kind: 'summary' } as never)),
      changed((json) => delete (json as Partial<typeof json>).agents),
    ];
    for (const json of refused) expect(historyOutlineFromJson(json), JSON.stringify(json)).toBeUndefined();
  });
});

describe('saving the views of what a store wrote, as it closes', () => {
  it('is done for each agent written with a history up to the limit, and left to `history` beyond it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-outline-'));
    const dataDir = join(directory, 'data');
    try {
      let store = await HistoryStore.open({ dataDir }, { saveViews: saveHistoryViews });
      const small = await store.createAgent();
      const large = await store.createAgent();
      const untouched = await store.createAgent();
      await store.append(small, [{ role: 'user', content: 'short' }]);
      await store.append(large, Array.from({ length: SAVE_VIEWS_AFTER_WRITE_UP_TO + 1 }, () => ({ role: 'user' as const, content: 'x' })));
      const child = await store.fork(small);
      await store.close();
      expect(historyOutlineFromJson(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, small))?.messages).toHaveLength(1);
      expect(historyTimelineFromJson(readSavedView(dataDir, HISTORY_TIMELINE_VIEW, small))?.forks.map((fork) => fork.childId)).toEqual([child]);
      expect(historyOutlineFromJson(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, child))?.messages).toHaveLength(1);
      expect(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, large)).toBeUndefined();
      // Written before the others: its views were dropped by their writes, and saved again at close.
      expect(historyOutlineFromJson(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, untouched))?.messages).toEqual([]);
      // A store reading only saves nothing: the views saved stay as they are.
      store = await HistoryStore.open({ dataDir }, { saveViews: saveHistoryViews });
      await store.history(small);
      await store.close();
      expect(historyOutlineFromJson(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, small))?.messages).toHaveLength(1);
      store = await HistoryStore.open({ dataDir });
      await saveHistoryOutline(store, large);
      await store.close();
      expect(historyOutlineFromJson(readSavedView(dataDir, HISTORY_OUTLINE_VIEW, large))?.messages).toHaveLength(SAVE_VIEWS_AFTER_WRITE_UP_TO + 1);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);
});
