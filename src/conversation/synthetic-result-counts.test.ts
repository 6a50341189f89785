import { afterAll, describe, expect, it } from 'vitest';
import { storedPreambleCount } from './agent-settings.js';
import { planOutlinedHistory, planStoredHistory } from './exchange-history.js';
import { readHistoryOutline } from './history-outline.js';
import { storedSyntheticResults } from './synthetic-result-counts.js';
import { importConversation } from '../import/import-conversation.js';
import type { ModelMessage } from '../message/message.js';
import { HistoryStore } from '../store/history-store.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';

const store = await HistoryStore.open({ memory: true });
afterAll(() => store.close());
const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };

/** Two exchanges; the first left two calls of one message and one of another unanswered (interrupted). */
const messages: ModelMessage[] = [
  { role: 'system', content: 'You are a careful assistant.' },
  { role: 'user', content: 'Look at the repository layout and the failing test.' },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'call_Xq81kLm2', toolName: 'list_files', input: { path: '.' } },
      { type: 'tool-call', toolCallId: 'call_b7TTz0pQ', toolName: 'read_file', input: { path: 'src/main.ts' } },
    ],
  },
  { role: 'user', content: 'Stop. Only run the tests instead.' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_rUn5Tests9', toolName: 'run_tests', input: {} }] },
  { role: 'user', content: 'Never mind: summarize what you know.' },
  { role: 'assistant', content: 'The layout was not read; nothing is known yet.' },
];

describe('counts of synthetic aborted results kept with an imported agent', () => {
  it('plan the agent\'s window and outline without a tokenizer, with the counts the real counter gives', async () => {
    const { agentId } = await importConversation(store, { conversation: { format: 'neutral', detected: false, messages, options: { model: 'gpt-4o' }, system: undefined, tools: undefined } }, { ...target, loadCounter: () => Promise.resolve(counter) });
    const meta = await store.agentMeta(agentId);
    const syntheticResults = storedSyntheticResults(meta, target);
    expect(syntheticResults.map((entry) => entry.calls.map((call) => call.toolCallId))).toEqual([['call_Xq81kLm2', 'call_b7TTz0pQ'], ['call_rUn5Tests9']]);
    expect(storedSyntheticResults(meta, { provider: 'anthropic', model: 'claude-sonnet-4-5' })).toEqual([]);

    const options = { store, agentId, ...target, budgetTokens: 100_000, preambleCount: storedPreambleCount(meta, target) };
    const counted = await planStoredHistory({ ...options, loadCounter: () => Promise.resolve(counter) });
    const refuse = () => Promise.reject(new Error('the tokenizer was loaded'));
    const stored = await planStoredHistory({ ...options, syntheticResults, loadCounter: refuse });
    expect(counted.plan.syntheticResults).toHaveLength(3);
    expect(stored.plan).toEqual(counted.plan);
    expect(stored.exchanges).toEqual(counted.exchanges);
    const outlined = await planOutlinedHistory(await readHistoryOutline(store, agentId), { ...options, syntheticResults, loadCounter: refuse });
    expect(outlined?.exchanges.map((exchange) => exchange.tokens)).toEqual(counted.exchanges.map((exchange) => exchange.tokens));

    // Counts for other calls than the ones left open are no use: the counter is loaded.
    const otherCalls = syntheticResults.map((entry) => ({ ...entry, calls: entry.calls.map((call) => ({ ...call, toolCallId: `${call.toolCallId}x` })) }));
    await expect(planStoredHistory({ ...options, syntheticResults: otherCalls, loadCounter: refuse })).rejects.toThrow('the tokenizer was loaded');
  });
});
