import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, describe, expect, it } from 'vitest';
import { renderAgentHistory } from '../cli/commands/store-commands.js';
import { openConversation } from '../conversation/conversation.js';
import { HistoryStore } from '../store/history-store.js';
import { startAnthropicCacheServer } from '../testing/anthropic-cache-server.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { countBreakpoints } from './anthropic/anthropic-breakpoints.js';

const counter = await loadTokenCounter();
const system = `You are a careful engineer. ${'Follow the house style, keep changes small, and explain each step. '.repeat(80)}`;
const tools = [{ name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }];
const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** A session of `turns` turns, every third with a tool call and a second request; returns the server's record and the conversation. */
async function runSession(turns: number, budgetTokens: number) {
  const server = await startAnthropicCacheServer({ minimumTokens: 1024, lookbackBlocks: 0 });
  servers.push(server);
  const client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
  const store = await HistoryStore.open({ memory: true });
  const conversation = await openConversation({ store, provider: 'anthropic', model: 'claude-sonnet-4-6', counter, budgetTokens, system, tools });
  const ask = async () => {
    const reply = await conversation.send((request) => client.messages.create(request as MessageCreateParamsNonStreaming));
    await conversation.append([{ role: 'assistant', content: reply.content.map((block) => ({ type: 'text' as const, text: block.type === 'text' ? block.text : '' })) }]);
    return reply;
  };
  for (let turn = 0; turn < turns; turn++) {
    await conversation.append([{ role: 'user', content: `Step ${turn}: ${'look at the next module and tell me what it does. '.repeat(6)}` }]);
    let reply = await ask();
    if (turn % 3 === 2) {
      await conversation.append([
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'read_file', input: { path: `src/${turn}.ts` } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${turn}`, toolName: 'read_file', output: { type: 'text', value: `export const v${turn} = ${turn};\n`.repeat(30) } }] },
      ]);
      reply = await ask();
    }
    await conversation.endTurn({ usage: reply.usage });
  }
  return { server, store, conversation };
}

describe('prompt caching against a loopback Anthropic server', () => {
  it('a 40-turn session marks its stable prefix (never more than 4 breakpoints), hits the cache, and history shows it', { timeout: 120_000 }, async () => {
    const { server, store, conversation } = await runSession(40, 200_000);
    const bodies = server.received.map((request) => request.body as MessageCreateParamsNonStreaming);
    expect(bodies).toHaveLength(40 + 13);
    for (const body of bodies) {
      expect(countBreakpoints(body)).toBeGreaterThanOrEqual(2);
      expect(countBreakpoints(body)).toBeLessThanOrEqual(4);
    }
    expect(server.outcomes.every((outcome) => outcome.breakpoints <= 4)).toBe(true);
    // The first request writes; from the second on, every request reads what the one before wrote.
    expect(server.outcomes[0]?.cache_read_input_tokens).toBe(0);
    expect(server.outcomes[0]?.cache_creation_input_tokens).toBeGreaterThan(0);
    for (const outcome of server.outcomes.slice(1)) expect(outcome.cache_read_input_tokens).toBeGreaterThan(0);
    const read = server.outcomes.reduce((sum, outcome) => sum + outcome.cache_read_input_tokens, 0);
    const input = server.outcomes.reduce((sum, outcome) => sum + outcome.input_tokens + outcome.cache_read_input_tokens + outcome.cache_creation_input_tokens, 0);
    expect(read / input).toBeGreaterThan(0.8);

    const view = await conversation.historyView();
    expect(view.cache).toEqual({ requests: 53, inputTokens: input, cacheReadTokens: read, cacheWriteTokens: server.outcomes.reduce((sum, outcome) => sum + outcome.cache_creation_input_tokens, 0) });
    expect(view.exchanges).toHaveLength(40);
    expect(view.exchanges.every((exchange) => exchange.cache !== undefined)).toBe(true);
    expect(view.exchanges[2]?.cache?.requests).toBe(2);
    const shown = renderAgentHistory(conversation.agentId, view);
    expect(shown).toMatch(/cached \d+%/);
    expect(shown).toContain(`Prompt cache: ${Math.round((100 * read) / input)}% of`);
    await store.close();
  });

  it('a window that slides keeps reading the tools and system prompt from the cache', { timeout: 120_000 }, async () => {
    const { server, store } = await runSession(30, 4_000);
    for (const outcome of server.outcomes.slice(1)) expect(outcome.cache_read_input_tokens).toBeGreaterThan(1024);
    expect(server.outcomes.every((outcome) => outcome.breakpoints <= 4)).toBe(true);
    await store.close();
  });
});
