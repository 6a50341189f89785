import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_SHAPE_OPTION } from '../../providers/google/google-shape-option.js';
import { buildRequest, type WireFormat } from '../../providers/wire-format.js';
import { HistoryStore } from '../../store/history-store.js';
import { conversationArbitrary, withoutEvents } from '../../testing/conversation-arbitrary.js';
import { runCli } from '../_test-cli.js';
import type { CliIo } from '../cli-io.js';
import { parseConversationInput } from '../read-conversation-input.js';
import { importConversation } from './import-command.js';
import { planAgentWindow } from './window-command.js';

/** A quiet io for the command functions called on an open store. */
const io: CliIo = {
  stdout: { write: () => true },
  stderr: { write: () => true },
  env: {},
  readText: () => Promise.reject(Object.assign(new Error('no files here'), { code: 'ENOENT' })),
  readStdin: () => Promise.resolve(''),
  readLines: () => {
    throw new Error('no files here');
  },
  fileSize: () => Promise.resolve(0),
  onInterrupt: () => () => undefined,
};

const models: Record<Exclude<WireFormat, 'neutral'>, string> = {
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-4o',
  'anthropic': 'claude-sonnet-4-5',
  'google': 'gemini-2.5-flash',
  'ai-sdk': 'openai/gpt-4o',
};
/** Options a body carries beside its content, by format, so that their return is checked too. */
const options: Record<Exclude<WireFormat, 'neutral'>, Record<string, unknown>> = {
  'openai-chat': { temperature: 0.2, max_tokens: 512, tool_choice: 'auto' },
  'openai-responses': { temperature: 0.2, max_output_tokens: 512, store: false },
  'anthropic': { temperature: 0.2, max_tokens: 512 },
  'google': { config: { temperature: 0.2, maxOutputTokens: 512 } },
  'ai-sdk': { temperature: 0.2, maxOutputTokens: 512 },
};

let store: HistoryStore;
beforeAll(async () => {
  store = await HistoryStore.open({ memory: true });
}, 60_000);
afterAll(async () => {
  await store.close();
});

const cases = [
  ...(Object.keys(models) as Exclude<WireFormat, 'neutral'>[]).map((format) => ({ name: format, format, options: options[format] })),
  // A Gemini REST body: generationConfig, systemInstruction and tools at the top level.
  { name: 'google (REST)', format: 'google' as const, options: { generationConfig: { temperature: 0.2 }, [GOOGLE_SHAPE_OPTION]: 'rest' } },
];

describe.each(cases)('$name: import, then window --agent --body', ({ format, options: bodyOptions }) => {
  it('is the body window <file> --body gives, under a budget that keeps everything and one that evicts', { timeout: 240_000 }, async () => {
    let evicting = 0;
    await fc.assert(
      // Two exchanges or more: the budget one token under the whole request then evicts in every run.
      fc.asyncProperty(conversationArbitrary({ minExchanges: 2, maxExchanges: 5 }), async (conversation) => {
        const content = { system: conversation.system, tools: conversation.tools, messages: withoutEvents(conversation.messages) };
        const body = buildRequest(format, { model: models[format], ...content, options: bodyOptions });
        const text = JSON.stringify(body);
        const agentId = await importConversation(store, parseConversationInput(text, 'stdin', format), {}, io);
        const whole = await planAgentWindow(store, agentId, { budget: '1000000' }, io);
        // One token under the whole request: every history of two exchanges or more must evict.
        const budgets = ['1000000', String(whole.plan.totalTokens - 1)];
        for (const budget of budgets) {
          const fromFile = JSON.parse((await runCli(['window', '-', '--body', '--format', format, '--budget', budget], { stdin: text })).stdout) as unknown;
          const { request, plan } = await planAgentWindow(store, agentId, { budget }, io);
          expect(JSON.parse(JSON.stringify(request))).toEqual(fromFile);
          if (budget !== '1000000' && plan.exchanges.length > 1) expect(plan.evictedExchanges).toBeGreaterThan(0);
          if (plan.evictedExchanges > 0) evicting++;
        }
      }),
      { numRuns: 8 },
    );
    // The evicting budget did evict in some of the runs.
    expect(evicting).toBeGreaterThan(0);
  });
});
