import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { MemorySaver } from '@langchain/langgraph';
import { generateText, type ModelMessage, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { Agent } from '@mastra/core/agent';
import { createAgent } from 'langchain';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoopbackAnswer, startLoopbackServer } from '../testing/loopback-server.js';
import { openAiChatStream, type ScriptedReply } from '../testing/openai-chat-stream.js';
import { slidingContext } from './ai-sdk/sliding-context-middleware.js';
import { slidingContextMiddleware } from './langchain/sliding-context-middleware.js';
import { SlidingContextProcessor } from './mastra/sliding-context-processor.js';

const scratch = mkdtempSync(join(tmpdir(), 'sc-recall-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

let answers = 0;
/** A Chat Completions answer, streamed or whole, as the request asked, each with an id of its own (LangChain keeps messages by id). */
function reply(scripted: ScriptedReply, streaming: boolean): LoopbackAnswer {
  const id = `chatcmpl-${++answers}`;
  if (streaming) return { status: 200, sse: openAiChatStream(scripted).replaceAll('chatcmpl-scripted', id) };
  const toolCalls = scripted.toolCalls?.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  const message = { role: 'assistant', content: scripted.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
  const body = { id, object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } };
  return { status: 200, body };
}

/** A word said in the first turn (stored as message `seq`), searched for and read back in the second. */
const script = (seq = 1): ScriptedReply[] => [
  { text: 'Noted.' },
  { toolCalls: [{ id: 'call_search', name: 'search_history', arguments: '{"query":"pelican42"}' }] },
  { toolCalls: [{ id: 'call_read', name: 'read_history', arguments: `{"message":${seq}}` }] },
  { text: 'It was pelican42.' },
];

interface SentBody {
  readonly tools?: { function: { name: string } }[];
  readonly messages: { role: string; content: unknown }[];
}

/** The requests a recall run sent: the tools it offered, and the tool results the model was given. */
function checkRecall(bodies: readonly SentBody[], seq = 1) {
  expect(bodies).toHaveLength(4);
  expect((bodies[1]?.tools ?? []).map((tool) => tool.function.name)).toEqual(expect.arrayContaining(['search_history', 'read_history']));
  expect(JSON.stringify(bodies[2]?.messages.at(-1)?.content)).toContain(`- exchange #0 · message ${seq} · user: remember pelican42`);
  expect(bodies[3]?.messages.at(-1)).toMatchObject({ role: 'tool', content: `message ${seq} · exchange #0 · user\nremember pelican42` });
}

describe('the recall tools of the integrations', () => {
  it.each(['generateText', 'streamText'])('AI SDK: recallTools() run on the conversation the call was placed in (%s)', async (mode) => {
    const replies = script();
    const server = await startLoopbackServer((request) => reply(replies.shift() ?? { text: 'nothing scripted' }, (request.body as { stream?: boolean }).stream === true));
    const middleware = slidingContext({ dataDir: join(scratch, `ai-sdk-${mode}`), conversationId: 'recall', budgetTokens: 100_000 });
    try {
      const model = wrapLanguageModel({ model: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o'), middleware });
      const tools = middleware.recallTools();
      const run = async (messages: ModelMessage[]) => {
        if (mode === 'generateText') return (await generateText({ model, messages, tools, stopWhen: stepCountIs(4) })).responseMessages;
        return streamText({ model, messages, tools, stopWhen: stepCountIs(4) }).responseMessages;
      };
      const history: ModelMessage[] = [{ role: 'user', content: 'remember pelican42' }];
      history.push(...(await run(history)), { role: 'user', content: 'what was the word?' });
      const answer = await run(history);
      expect(JSON.stringify(answer.at(-1))).toContain('It was pelican42.');
      checkRecall(server.received.map((request) => request.body as SentBody));
    } finally {
      await middleware.close();
      await server.close();
    }
  }, 240_000);

  it('AI SDK: a recall call from a model the middleware did not wrap is answered, not run', async () => {
    const middleware = slidingContext({ dataDir: join(scratch, 'ai-sdk-unwrapped') });
    try {
      const answer = await middleware.recallTools().search_history.execute({ query: 'x' }, { toolCallId: 'call_elsewhere' });
      expect(answer).toContain('came from no such model');
    } finally {
      await middleware.close();
    }
  });

  it('Mastra: recallTools() run on the conversation the step was placed in', async () => {
    // The instructions are stored first: the user's message is message 2.
    const replies = script(2);
    const server = await startLoopbackServer((request) => reply(replies.shift() ?? { text: 'nothing scripted' }, (request.body as { stream?: boolean }).stream === true));
    const processor = new SlidingContextProcessor({ dataDir: join(scratch, 'mastra'), budgetTokens: 100_000 });
    try {
      // Mastra declares the AI SDK's model type from its own copy of `@ai-sdk/provider`.
      const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'test' }).chat('gpt-4o') as unknown as ConstructorParameters<typeof Agent>[0]['model'];
      const agent = new Agent({ id: 'recall', name: 'recall', instructions: 'You remember words.', model, tools: processor.recallTools(), inputProcessors: [processor] });
      const memory = { thread: 'recall-thread', resource: 'desk-user' };
      const history: unknown[] = [{ role: 'user', content: 'remember pelican42' }];
      const first = await agent.generate(history as Parameters<Agent['generate']>[0], { memory, maxSteps: 5 });
      history.push(...first.response.messages ?? [], { role: 'user', content: 'what was the word?' });
      const second = await agent.generate(history as Parameters<Agent['generate']>[0], { memory, maxSteps: 5 });
      expect(second.text).toBe('It was pelican42.');
      checkRecall(server.received.map((request) => request.body as SentBody), 2);
    } finally {
      await processor.close();
      await server.close();
    }
  }, 240_000);

  it('LangChain: the middleware adds the tools to the agent and runs them on the thread\'s history', async () => {
    const replies = script();
    const server = await startLoopbackServer((request) => reply(replies.shift() ?? { text: 'nothing scripted' }, (request.body as { stream?: boolean }).stream === true));
    const middleware = slidingContextMiddleware({ dataDir: join(scratch, 'langchain'), budgetTokens: 100_000 });
    try {
      const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'sk-loopback', maxRetries: 0, configuration: { baseURL: `${server.url}/v1` } });
      const agent = createAgent({ model, tools: [], middleware: [middleware], checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: 'recall-desk' } };
      await agent.invoke({ messages: [{ role: 'user', content: 'remember pelican42' }] }, config);
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'what was the word?' }] }, config);
      expect(result.messages.at(-1)?.text).toBe('It was pelican42.');
      checkRecall(server.received.map((request) => request.body as SentBody));
    } finally {
      await middleware.close();
      await server.close();
    }
  }, 240_000);
});
