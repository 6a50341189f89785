import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, stepCountIs, streamText, tool, ToolLoopAgent, wrapLanguageModel } from 'ai';
import {
  generateText as generateText6, type ModelMessage as ModelMessage6, stepCountIs as stepCountIs6, streamText as streamText6, tool as tool6, wrapLanguageModel as wrapLanguageModel6,
} from 'ai-v6';
import { createAnthropic as createAnthropic6 } from 'ai-sdk-anthropic-v3';
import { createOpenAI as createOpenAI6 } from 'ai-sdk-openai-v3';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConversationEvent } from '../../conversation/conversation.js';
import type { Message } from '../../message/message.js';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { anthropicServer, openAiServer, pairingProblems, type SeenRequest } from './_test-provider-servers.js';
import { slidingContext } from './sliding-context-middleware.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sc-ai-sdk-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const BUDGET = 1_500;
const TURNS = 7;
const OVERFLOW_TURN = 5;
const counter = await loadTokenCounter({ targets: [{ provider: 'openai', model: 'gpt-4o' }] });
const facts = (topic: string) => `Facts about ${topic}: ${'the archive lists one more detail here; '.repeat(12)}`;

/** The CLI, built, from a second process while this one holds the store. */
function cli(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'dist/cli/main.js'), ...args], { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1', DATABASE_URL: '' } }, (error, stdout, stderr) => {
      resolve({ status: error ? 1 : 0, stdout, stderr });
    });
  });
}

const userText = (message: Message | undefined): string | undefined => {
  if (message?.role !== 'user') return undefined;
  if (typeof message.content === 'string') return message.content;
  return message.content.find((part) => part.type === 'text')?.text;
};

/** What every request a server received must hold to. */
function checkRequests(seen: readonly SeenRequest[], turnStarts: readonly number[], exact: boolean) {
  seen.forEach((request, index) => {
    const turn = turnStarts.findLastIndex((start) => start <= index) + 1;
    expect(pairingProblems(request.messages), `request ${index}`).toEqual([]);
    const first = request.messages.find((message) => message.role !== 'system');
    expect(userText(first), `request ${index} starts with a user message`).toBeDefined();
    // The latest exchange is in every request: the turn's own user message.
    expect(request.messages.map(userText), `request ${index}`).toContain(`turn ${turn}`);
    if (exact && !request.overflowed) expect(request.tokens, `request ${index}`).toBeLessThanOrEqual(BUDGET);
  });
  // Old exchanges left the window: a late request holds fewer user turns than were taken.
  expect(seen.at(-1)?.messages.filter((message) => userText(message)?.startsWith('turn ')).length).toBeLessThan(TURNS);
  const overflowed = seen.findIndex((request) => request.overflowed);
  expect(overflowed).toBeGreaterThanOrEqual(0);
  expect(seen[overflowed + 1]?.tokens).toBeLessThan(seen[overflowed]?.tokens ?? 0);
}

/** `agents` and `history` from a second process, while this one holds the store: the conversation, every turn and answer stored once. */
async function checkStoredHistory(dataDir: string, find: (agents: { agentId: string; name: string | null }[]) => { agentId: string } | undefined, preamble: number) {
  const agents = await cli(['agents', '--data-dir', dataDir, '--json']);
  expect(agents.stderr).toBe('');
  const agent = find(JSON.parse(agents.stdout) as { agentId: string; name: string | null }[]);
  expect(agent).toBeDefined();
  const history = await cli(['history', agent?.agentId ?? '', '--data-dir', dataDir]);
  expect(history.stderr).toBe('');
  expect(history.stdout).toContain('Outside the window (kept in the history)');
  const exported = await cli(['export', agent?.agentId ?? '', '--data-dir', dataDir]);
  // The header line, then each turn: the user message, the two parallel calls, their results, the answer.
  expect(exported.stdout.trim().split('\n')).toHaveLength(1 + preamble + 4 * TURNS);
  for (let turn = 1; turn <= TURNS; turn++) {
    expect(history.stdout).toContain(`"turn ${turn}"`);
    expect(exported.stdout).toContain(`answer to turn ${turn}`);
  }
}

type Provider = 'openai' | 'anthropic';
const providers: Provider[] = ['openai', 'anthropic'];

describe.each(providers)('ai 7 with @ai-sdk/%s', (provider) => {
  it('windows a multi-step tool loop with parallel calls through generateText, streamText and ToolLoopAgent, answers an overflow, and stores it all', { timeout: 120_000 }, async () => {
    const server = provider === 'openai' ? await openAiServer(counter, 'gpt-4o') : await anthropicServer(counter, 'claude-sonnet-4-5');
    const dataDir = join(scratch, `v7-${provider}`);
    const events: ConversationEvent[] = [];
    const middleware = slidingContext({ dataDir, conversationId: `v7-${provider}`, budgetTokens: BUDGET, onEvent: (event) => events.push(event) });
    try {
      const base = provider === 'openai'
        ? createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o')
        : createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'test' })('claude-sonnet-4-5');
      const model = wrapLanguageModel({ model: base, middleware });
      const tools = { lookup: tool({ description: 'Looks a topic up.', inputSchema: z.object({ topic: z.string() }), execute: ({ topic }) => facts(topic) }) };
      const agent = new ToolLoopAgent({ model, tools, stopWhen: stepCountIs(4) });
      const history: ModelMessage[] = [];
      const turnStarts: number[] = [];
      for (let turn = 1; turn <= TURNS; turn++) {
        turnStarts.push(server.seen.length);
        if (turn === OVERFLOW_TURN) server.overflowNext();
        history.push({ role: 'user', content: `turn ${turn}` });
        let text: string;
        let messages: ModelMessage[];
        if (turn % 3 === 0) {
          const result = await agent.generate({ messages: history });
          ({ text } = result);
          messages = result.responseMessages;
        } else if (turn % 3 === 1) {
          const result = await generateText({ model, messages: history, tools, stopWhen: stepCountIs(4) });
          ({ text } = result);
          messages = result.responseMessages;
        } else {
          const result = streamText({ model, messages: history, tools, stopWhen: stepCountIs(4) });
          text = await result.text;
          messages = await result.responseMessages;
        }
        expect(text).toBe(`answer to turn ${turn}`);
        history.push(...messages);
      }
      checkRequests(server.seen, turnStarts, provider === 'openai');
      expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['exchange-evicted', 'overflow-retried']));
      await checkStoredHistory(dataDir, (agents) => agents.find((entry) => entry.name === `v7-${provider}`), 0);
    } finally {
      await middleware.close();
      await server.close();
    }
  });
});

describe.each(providers)('ai 6 with @ai-sdk/%s 3', (provider) => {
  it('windows a multi-step tool loop with parallel calls through generateText and streamText, found by its prefix, and stores it all', { timeout: 120_000 }, async () => {
    const server = provider === 'openai' ? await openAiServer(counter, 'gpt-4o') : await anthropicServer(counter, 'claude-sonnet-4-5');
    const dataDir = join(scratch, `v6-${provider}`);
    const events: ConversationEvent[] = [];
    // No conversation id: each call is placed by the prefix of its messages.
    const middleware = slidingContext({ dataDir, budgetTokens: BUDGET, specificationVersion: 'v3', onEvent: (event) => events.push(event) });
    try {
      const base = provider === 'openai'
        ? createOpenAI6({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o')
        : createAnthropic6({ baseURL: `${server.url}/v1`, apiKey: 'test' })('claude-sonnet-4-5');
      const model = wrapLanguageModel6({ model: base, middleware });
      const tools = { lookup: tool6({ description: 'Looks a topic up.', inputSchema: z.object({ topic: z.string() }), execute: ({ topic }) => facts(topic) }) };
      const history: ModelMessage6[] = [];
      const turnStarts: number[] = [];
      for (let turn = 1; turn <= TURNS; turn++) {
        turnStarts.push(server.seen.length);
        if (turn === OVERFLOW_TURN) server.overflowNext();
        history.push({ role: 'user', content: `turn ${turn}` });
        let text: string;
        let messages: ModelMessage6[];
        if (turn % 2 === 1) {
          const result = await generateText6({ model, system: 'You look things up.', messages: history, tools, stopWhen: stepCountIs6(4) });
          ({ text } = result);
          messages = result.response.messages;
        } else {
          const result = streamText6({ model, system: 'You look things up.', messages: history, tools, stopWhen: stepCountIs6(4) });
          text = await result.text;
          messages = (await result.response).messages;
        }
        expect(text).toBe(`answer to turn ${turn}`);
        history.push(...messages);
      }
      checkRequests(server.seen, turnStarts, provider === 'openai');
      expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['exchange-evicted', 'overflow-retried']));
      // Every call continued the one conversation its prefix named: no forks, no second root.
      await checkStoredHistory(dataDir, (agents) => (agents.length === 1 ? agents[0] : undefined), 1);
    } finally {
      await middleware.close();
      await server.close();
    }
  });
});
