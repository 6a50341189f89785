import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../cli/_test-cli.js';
import { HistoryStore } from '../store/history-store.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { startScriptedUpstream } from './_test-scripted-upstream.js';
import { startProxy } from './start-proxy.js';

const OPENAI_MODEL = 'gpt-4o';
const ANTHROPIC_MODEL = 'claude-sonnet-4-5';
const readFileTool = { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
const fileText = (path: string) => `contents of ${path}`;

const databaseUrl = process.env.DATABASE_URL;
const engines = [['PGlite', undefined], ...(databaseUrl ? [['PostgreSQL', databaseUrl] as const] : [])] as const;

describe.each(engines)('serve on %s stores each agent with the model and preamble its latest request sent', (_engine, serverUrl) => {
  const directory = mkdtempSync(join(tmpdir(), 'sc-serve-settings-'));
  let counter: TokenCounter;
  const drops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    counter = await loadTokenCounter({ targets: [{ provider: 'openai', model: OPENAI_MODEL }, { provider: 'anthropic', model: ANTHROPIC_MODEL }] });
  });
  afterAll(async () => {
    for (const drop of drops) await drop();
    rmSync(directory, { recursive: true, force: true });
  });

  /**
   * A proxy on a store of its own, and the CLI flags that open that store once `close` let it go
   * (a PGlite directory admits one process, and the CLI opens it as another would).
   */
  async function startServing(name: string) {
    let store: HistoryStore;
    let flags: string[];
    if (serverUrl) {
      const database = await createServerDatabase(serverUrl, 'settings');
      drops.push(() => database.drop());
      store = await HistoryStore.open({ databaseUrl: database.url });
      flags = ['--database-url', database.url];
    } else {
      const dataDir = join(directory, name);
      store = await HistoryStore.open({ dataDir });
      flags = ['--data-dir', dataDir];
    }
    const upstream = await startScriptedUpstream(counter);
    const proxy = await startProxy({ store, port: 0, budgetTokens: 3_000, upstreamOpenAi: upstream.url, upstreamAnthropic: upstream.url });
    return {
      store,
      flags,
      upstream,
      openai: new OpenAI({ apiKey: 'sk-test', baseURL: `${proxy.url}/v1`, maxRetries: 0 }),
      anthropic: new Anthropic({ apiKey: 'sk-ant-test', baseURL: proxy.url, maxRetries: 0 }),
      settled: () => proxy.settled(),
      close: async () => {
        await proxy.close();
        await upstream.close();
        await store.close();
      },
    };
  }

  it('a fork made by a request on another API, for another model, is stored with that request\'s provider, model, system prompt and tools', async () => {
    const serving = await startServing('fork');
    try {
      const first = await serving.openai.chat.completions.create({
        model: OPENAI_MODEL,
        messages: [{ role: 'system', content: 'OPENAI SYSTEM' }, { role: 'user', content: 'fork across: first question' }],
        tools: [{ type: 'function', function: readFileTool }],
      }).withResponse();
      const parent = first.response.headers.get('x-sliding-context-agent')!;
      const parentMeta = await serving.store.agentMeta(parent);
      const listFiles = { name: 'list_files', description: 'List files', inputSchema: { type: 'object', properties: {} } };
      // Pinned by id, in Anthropic's shape (its system prompt beside the messages): the histories part at once, so it forks.
      const forked = await serving.anthropic.messages.create({
        model: ANTHROPIC_MODEL,
        max_tokens: 64,
        system: 'ANTHROPIC SYSTEM',
        tools: [{ name: listFiles.name, description: listFiles.description, input_schema: { type: 'object', properties: {} } }],
        messages: [{ role: 'user', content: 'fork across: first question' }],
      }, { headers: { 'x-sliding-context-agent': parent } }).withResponse();
      const child = forked.response.headers.get('x-sliding-context-agent')!;
      await serving.settled();
      const agents = await serving.store.listAgents();
      expect(agents.find((agent) => agent.agentId === child)).toMatchObject({ parentId: parent, provider: 'anthropic', model: ANTHROPIC_MODEL });
      const meta = await serving.store.agentMeta(child);
      expect(meta).toMatchObject({
        provider: 'anthropic',
        model: ANTHROPIC_MODEL,
        format: 'anthropic',
        system: 'ANTHROPIC SYSTEM',
        tools: [listFiles],
        preambleCount: { target: `anthropic/${ANTHROPIC_MODEL}` },
      });
      // The count stored is that of the fork's own preamble, for its own model.
      const preamble = counter.countPreamble({ provider: 'anthropic', model: ANTHROPIC_MODEL, system: 'ANTHROPIC SYSTEM', tools: [listFiles] });
      expect(meta.preambleCount).toMatchObject({ tokens: preamble.tokens });
      // The parent keeps its own.
      expect(await serving.store.agentMeta(parent)).toEqual(parentMeta);
      expect(parentMeta).toMatchObject({ provider: 'openai', model: OPENAI_MODEL, format: 'openai-chat' });

      // A fork by a request without a system prompt or tools keeps none of its parent's.
      const bare = await serving.anthropic.messages.create({
        model: ANTHROPIC_MODEL,
        max_tokens: 64,
        messages: [{ role: 'user', content: 'fork across: first question' }, { role: 'assistant', content: 'an edited answer' }, { role: 'user', content: 'and then?' }],
      }, { headers: { 'x-sliding-context-agent': child } }).withResponse();
      const bareChild = bare.response.headers.get('x-sliding-context-agent')!;
      expect(bareChild).not.toBe(child);
      await serving.settled();
      const bareMeta = await serving.store.agentMeta(bareChild);
      expect(bareMeta).not.toHaveProperty('system');
      expect(bareMeta).not.toHaveProperty('tools');
      const framing = counter.countPreamble({ provider: 'anthropic', model: ANTHROPIC_MODEL });
      expect(bareMeta).toMatchObject({ provider: 'anthropic', model: ANTHROPIC_MODEL, preambleCount: { tokens: framing.tokens } });
      expect(framing.tokens).toBeLessThan(preamble.tokens);
    } finally {
      await serving.close();
    }
  });

  it('window --agent builds the body in the format the agent\'s requests came in, and history names the same format', async () => {
    const serving = await startServing('format');
    let agentId: string;
    try {
      const answer = await serving.openai.responses.create({ model: OPENAI_MODEL, instructions: 'RESPONSES SYSTEM', input: 'format: hello' }).withResponse();
      agentId = answer.response.headers.get('x-sliding-context-agent')!;
      await serving.settled();
    } finally {
      await serving.close();
    }
    const window = JSON.parse((await runCli(['window', '--agent', agentId, '--json', ...serving.flags])).stdout) as { format: string; request: Record<string, unknown> };
    expect(window.format).toBe('openai-responses');
    expect(window.request).toMatchObject({ model: OPENAI_MODEL, instructions: 'RESPONSES SYSTEM', input: [{ role: 'user' }, { role: 'assistant' }] });
    const history = JSON.parse((await runCli(['history', agentId, '--json', ...serving.flags])).stdout) as { format: string };
    expect(history.format).toBe('openai-responses');
  });

  it('window --agent and history plan with the system prompt and tools of the latest request, not the first one', async () => {
    const serving = await startServing('preamble');
    let agentId: string;
    try {
      const send = (system: string, tool: string, messages: Anthropic.MessageParam[]) =>
        serving.anthropic.messages.create({ model: ANTHROPIC_MODEL, max_tokens: 64, system, tools: [{ name: tool, input_schema: { type: 'object' } }], messages }).withResponse();
      const answered = (reply: Anthropic.Message): Anthropic.MessageParam[] => {
        const calls = reply.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
        return [{ role: 'assistant', content: reply.content }, { role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: fileText(call.id) })) }];
      };
      const updates = vi.spyOn(serving.store, 'updateAgentMeta');
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'preamble: hello' }];
      const first = await send('FIRST SYSTEM', 'first_tool', messages);
      agentId = first.response.headers.get('x-sliding-context-agent')!;
      messages.push(...answered(first.data));
      const second = await send('SECOND SYSTEM', 'second_tool', messages);
      messages.push({ role: 'assistant', content: second.data.content }, { role: 'user', content: 'preamble: and now?' });
      const third = await send('LATEST SYSTEM', 'latest_tool', messages);
      messages.push(...answered(third.data));
      const fourth = await send('LATEST SYSTEM', 'latest_tool', messages);
      expect(new Set([first, second, third, fourth].map((turn) => turn.response.headers.get('x-sliding-context-agent')))).toEqual(new Set([agentId]));
      // Written when the preamble changed (the second and third requests), not on every request.
      expect(updates.mock.calls.map(([updated]) => updated)).toEqual([agentId, agentId]);
      await serving.settled();
    } finally {
      await serving.close();
    }
    const window = JSON.parse((await runCli(['window', '--agent', agentId, '--json', ...serving.flags])).stdout) as { model: string; pinnedTokens: number; totalTokens: number; request: { system?: unknown; tools?: { name: string }[] } };
    expect(window.model).toBe(ANTHROPIC_MODEL);
    expect(JSON.stringify(window.request.system)).toContain('LATEST SYSTEM');
    expect(JSON.stringify(window.request.system)).not.toContain('FIRST SYSTEM');
    expect(window.request.tools?.map((tool) => tool.name)).toEqual(['latest_tool']);
    // Both plan with the latest preamble's count: the window's pinned tokens are those of its system prompt and tools.
    const latest = counter.countPreamble({ provider: 'anthropic', model: ANTHROPIC_MODEL, system: 'LATEST SYSTEM', tools: [{ name: 'latest_tool', inputSchema: { type: 'object' } }] });
    const history = JSON.parse((await runCli(['history', agentId, '--json', ...serving.flags])).stdout) as { pinnedTokens: number; totalTokens: number };
    expect([window.pinnedTokens, history.pinnedTokens]).toEqual([latest.tokens, latest.tokens]);
    expect(history.totalTokens).toBe(window.totalTokens);
  });
});
