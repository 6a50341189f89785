import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, expect, it } from 'vitest';
import { startScriptedUpstream } from '../../serve/_test-scripted-upstream.js';
import { HistoryStore } from '../../store/history-store.js';
import { loadTokenCounter } from '../../tokens/load-token-counter.js';
import { runCli } from '../_test-cli.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'sc-serve-'));
const dataDir = join(directory, 'data');
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Starts `serve` with `args` in a child process; `url` is where it listens once it says so. */
function spawnServe(args: readonly string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, ...args], {
    cwd: root, env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '' },
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
  });
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(() => {
      reject(new Error(`serve exited: ${output}`));
    });
  });
  return { child, url, exited, output: () => output };
}

it('serve holds the store while the CLI reads it from another process, and lets it go on SIGTERM', async () => {
  const upstream = await startScriptedUpstream(await loadTokenCounter({ targets: [{ provider: 'openai', model: 'gpt-4o' }] }));
  const { child, url: listening, exited, output } = spawnServe(['--upstream-openai', upstream.url, '--budget', '1500']);
  try {
    const url = await listening;
    expect(output()).toContain(`OPENAI_BASE_URL=${url}/v1`);
    expect(output()).toContain(`ANTHROPIC_BASE_URL=${url}`);

    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [];
    let agentId = '';
    for (let turn = 1; turn <= 4; turn++) {
      messages.push({ role: 'user', content: `turn ${turn}: read two files` });
      for (;;) {
        const { data, response } = await client.chat.completions.create({ model: 'gpt-4o', messages, tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }] }).withResponse();
        agentId = response.headers.get('x-sliding-context-agent') ?? '';
        const message = data.choices[0]!.message;
        messages.push(message);
        if (!message.tool_calls) break;
        for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: `contents of ${call.id}: ${'words '.repeat(150)}` });
      }
    }

    // Another process: the CLI reads the store through the one serving it.
    // The last answer is stored just after it is sent: asked again until it is there.
    let listed: [string, number][] = [];
    for (let attempt = 0; attempt < 20 && listed[0]?.[1] !== messages.length; attempt++) {
      const agents = await runCli(['agents', '--data-dir', dataDir, '--json']);
      listed = (JSON.parse(agents.stdout) as { agentId: string; messages: number }[]).map((agent) => [agent.agentId, agent.messages]);
    }
    expect(listed).toEqual([[agentId, messages.length]]);
    const history = await runCli(['history', agentId, '--data-dir', dataDir], { env: { NO_COLOR: '1' } });
    expect(history.stdout).toContain('Outside the window (kept in the history):');
    expect(history.stdout).toContain('"turn 4: read two files"');
    expect(history.stdout).toMatch(/Window [\d,]+ \/ 1,500 tokens · \d+ exchanges? in, \d+ out/);
    const window = await runCli(['window', '--agent', agentId, '--data-dir', dataDir, '--json']);
    expect((JSON.parse(window.stdout) as { evictedExchanges: number }).evictedExchanges).toBeGreaterThan(0);

    // The history's web view, on the same port as the proxy.
    expect(output()).toContain(`History in the browser: ${url}/`);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>sliding-context · history</title>');
    const viewed = (await (await fetch(`${url}/api/agents`)).json());
    expect(JSON.stringify(viewed)).toContain(agentId);
  } finally {
    child.kill('SIGTERM');
    await upstream.close();
  }
  expect(await exited).toBe(143);
  expect(existsSync(`${dataDir}.sock`)).toBe(false);
  // The store is released: this process opens it.
  const store = await HistoryStore.open({ dataDir });
  expect(await store.listAgents()).toHaveLength(1);
  await store.close();
});

it('serve --no-proxy serves the web view alone: the page and its API, no proxy endpoint', async () => {
  const { child, url: listening, exited, output } = spawnServe(['--no-proxy']);
  try {
    const url = await listening;
    expect(output()).not.toContain('OPENAI_BASE_URL');
    expect((await fetch(`${url}/`)).status).toBe(200);
    expect((await fetch(`${url}/api/agents`)).status).toBe(200);
    const proxied = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(proxied.status).toBe(404);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(143);
});
