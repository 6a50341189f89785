import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-export-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('export', () => {
  it('--out writes JSONL that import reads back with its events; a wire format says on stderr what it left out', async () => {
    const dataDir = join(directory, 'store');
    const flags = ['--data-dir', dataDir];
    const history: Message[] = [
      { role: 'user', content: 'ask one' },
      { role: 'assistant', content: 'answer one' },
      { role: 'event', kind: 'mark', label: 'a' },
      { role: 'user', content: 'ask two' },
      { role: 'assistant', content: 'answer two' },
      { role: 'event', kind: 'rewind', label: 'a' },
      { role: 'user', content: 'ask three' },
      { role: 'assistant', content: 'answer three' },
    ];
    const store = await HistoryStore.open({ dataDir });
    const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o', system: 'Be brief.' });
    await store.append(agentId, history);
    await store.close();

    const { written, stderr } = await runCli(['export', agentId, '--out', 'agent.jsonl', ...flags]);
    expect(stderr).toBe(`exported 8 messages of ${agentId} as jsonl to agent.jsonl\n`);
    const text = written['agent.jsonl'] ?? '';
    expect(text.trimEnd().split('\n').slice(1).map((line) => JSON.parse(line) as unknown)).toEqual(history);
    const { agentId: copy } = JSON.parse((await runCli(['import', 'agent.jsonl', '--json', ...flags], { files: { 'agent.jsonl': text } })).stdout) as { agentId: string };

    const wire = await runCli(['export', copy, '--format', 'anthropic', ...flags]);
    expect(JSON.parse(wire.stdout)).toMatchObject({ system: 'Be brief.', messages: [{ role: 'user' }, { role: 'assistant' }, { role: 'user' }, { role: 'assistant' }] });
    expect(wire.stderr).toBe('note: anthropic cannot represent events: left out 1 mark, 1 rewind, 2 messages a clear or rewind hid; --format jsonl keeps them\n');
    const reopened = await HistoryStore.open({ dataDir });
    try {
      expect((await reopened.history(copy)).map((entry) => entry.message)).toEqual(history);
    } finally {
      await reopened.close();
    }
  }, 600_000);
});
