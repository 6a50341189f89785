/**
 * Real agent command lines that no one here wrote, Codex (`codex exec`) and Claude Code (`claude -p`),
 * run a scripted two-turn, two-tool task through the proxy against a scripted loopback upstream, with
 * a budget that makes the window slide; the built CLI reads the store from another process meanwhile.
 * The command lines are installed on demand (agent-clis/, about 800 MB).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isModelMessage } from '../message/message.js';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import { convertFrom, detectFormat } from '../providers/wire-format.js';
import { HistoryStore } from '../store/history-store.js';
import { agentCliTask, type AgentCliTask, expectedFiles, prepareAgentCliTask } from '../testing/agent-cli-task.js';
import { type AgentCliBinaries, installAgentClis } from '../testing/install-agent-clis.js';
import { startHeaderTap } from '../testing/header-tap.js';
import { judgeWindow } from '../testing/judge-window.js';
import type { ReceivedRequest } from '../testing/loopback-server.js';
import { startScriptedAgentUpstream } from '../testing/scripted-agent-upstream.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { ProxyApi } from './proxy-endpoints.js';
import { type RunningProxy, startProxy } from './start-proxy.js';

/** The key each command line sends; the upstream checks it arrived untouched. */
const API_KEY = 'sk-scripted-test-key';
/** Longest a single command line run may take before the test gives up on it, in milliseconds. */
const RUN_TIMEOUT_MS = 45_000;

/**
 * The budget of every conversation, in tokens: both command lines' second turns leave the first out
 * at 11,000; at 12,000 Codex's do not (its requests count about 9,500 tokens of instructions and tools alone).
 */
const BUDGET_TOKENS = 11_000;

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The command line as a user runs it, built by `npm run build`. */
const builtCli = join(root, 'dist', 'cli', 'main.js');

/** Proxies started for a test, closed after it. */
const proxiesToClose: (() => Promise<void>)[] = [];

/**
 * The proxy the command lines are pointed at: a PGlite store in `dataDir`, both upstreams
 * `upstreamUrl`, a budget of {@link BUDGET_TOKENS}. While it runs, the store is served to the CLI.
 */
async function startWindowingProxy(upstreamUrl: string, dataDir: string): Promise<RunningProxy> {
  const store = await HistoryStore.open({ dataDir });
  const proxy = await startProxy({ store, port: 0, budgetTokens: BUDGET_TOKENS, upstreamOpenAi: upstreamUrl, upstreamAnthropic: upstreamUrl });
  proxiesToClose.push(async () => {
    await proxy.close();
    await store.close();
  });
  return proxy;
}

interface Run {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command line with exactly `env` (nothing of the machine's user leaks in), stdin closed. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: RUN_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/** The built CLI in a child process, on the store the proxy holds (reached through it). */
function slidingContextCli(args: readonly string[], dataDir: string): Promise<Run> {
  return run(process.execPath, [builtCli, ...args, '--data-dir', dataDir], root, { PATH: process.env.PATH ?? '', HOME: tmpdir(), NO_COLOR: '1' });
}

/** One agent command line: how to run each turn of the task against a base URL. */
interface AgentCli {
  readonly name: string;
  readonly api: ProxyApi;
  /** The endpoint the command line sends its turns to. */
  readonly endpoint: string;
  /**
   * Whether its requests can fit the budget at all. Claude Code's system prompt and tools alone
   * estimate at about 14,200 tokens, over 11,000: each of its windows is then the latest exchange
   * alone, which the proxy sends over budget (nothing else is left to evict).
   */
  readonly fitsBudget: boolean;
  /** True when a request carries the environment the command line describes itself in, where it sent it. */
  readonly hasEnvironment: (request: ReceivedRequest, task: AgentCliTask) => boolean;
  readonly runTurn: (binaries: AgentCliBinaries, task: AgentCliTask, turnIndex: number, baseUrl: string, home: string) => Promise<Run>;
  /** The header that carries the key, and how the key appears in it. */
  readonly keyHeader: readonly [name: string, value: string];
}

/** The items of a Responses body's input, or the messages of a Messages body, each as its role and JSON. */
function entriesOf(request: ReceivedRequest, field: 'input' | 'messages'): { role: unknown; json: string }[] {
  const body = request.body as Record<string, unknown>;
  const entries = Array.isArray(body[field]) ? (body[field] as Record<string, unknown>[]) : [];
  return entries.map((entry) => ({ role: entry.role, json: JSON.stringify(entry.content ?? null) }));
}

const codex: AgentCli = {
  name: 'Codex (codex exec)',
  api: 'openai',
  endpoint: '/v1/responses',
  fitsBudget: true,
  // A user message of its own, right before the turn's first request.
  hasEnvironment: (request, task) => {
    const input = entriesOf(request, 'input');
    const at = input.findIndex((item) => item.role === 'user' && item.json.includes('<environment_context>') && item.json.includes(JSON.stringify(task.directory).slice(1, -1)));
    return at >= 0 && input[at + 1]?.role === 'user' && task.turns.some((turn) => input[at + 1]?.json.includes(JSON.stringify(turn.prompt).slice(1, -1)));
  },
  keyHeader: ['authorization', `Bearer ${API_KEY}`],
  runTurn: (binaries, task, turnIndex, baseUrl, home) => {
    // The provider exactly as the README sets it up; then what a test run needs (no analytics, no update check).
    const config = [
      'model_provider=sliding-context',
      `model_providers.sliding-context={name="sliding-context",base_url="${baseUrl}/v1",wire_api="responses",env_key="OPENAI_API_KEY"}`,
      'analytics.enabled=false',
      'check_for_update_on_startup=false',
    ].flatMap((setting) => ['-c', setting]);
    const resume = turnIndex === 0 ? [] : ['resume', '--last'];
    const args = [binaries.codex, 'exec', ...resume, '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-m', 'gpt-5.5', ...config, task.turns[turnIndex]!.prompt];
    return run(process.execPath, args, task.directory, { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: join(home, '.codex'), OPENAI_API_KEY: API_KEY });
  },
};

const claudeCode: AgentCli = {
  name: 'Claude Code (claude -p)',
  api: 'anthropic',
  endpoint: '/v1/messages',
  fitsBudget: false,
  // A system message among the messages, right after the first user message.
  hasEnvironment: (request, task) => {
    const messages = entriesOf(request, 'messages');
    return messages[0]?.role === 'user' && messages[1]?.role === 'system' && messages[1].json.includes('# Environment') && messages[1].json.includes(task.directory);
  },
  keyHeader: ['x-api-key', API_KEY],
  runTurn: (binaries, task, turnIndex, baseUrl, home) => {
    // --dangerously-skip-permissions is refused under root; allowing the two tools and accepting edits is enough.
    const args = ['-p', ...(turnIndex === 0 ? [] : ['--continue']), '--allowedTools', 'Read,Write', '--permission-mode', 'acceptEdits', task.turns[turnIndex]!.prompt];
    return run(binaries.claude, args, task.directory, {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: API_KEY,
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
  },
};

/** A received body that carries a conversation, taken apart as the judge reads it. */
function conversationOf(request: ReceivedRequest) {
  return convertFrom(detectFormat(request.body), request.body);
}

let binaries: AgentCliBinaries;
let scratch: string;

beforeAll(() => {
  // npm ci from the registry when they are missing or stale: a failure here fails the file.
  binaries = installAgentClis();
  scratch = mkdtempSync(join(tmpdir(), 'agent-clis-'));
}, 300_000);

afterEach(async () => {
  await Promise.all(proxiesToClose.splice(0).map((close) => close()));
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe.each([codex, claudeCode])('$name', (cli) => {
  it('completes the two-turn, two-tool task through the proxy; the window slides, keeps the environment, and every body upstream is a whole window within budget', async () => {
    expect(existsSync(builtCli), 'the built CLI reads the store: run npm run build first').toBe(true);
    const runDirectory = mkdtempSync(join(scratch, 'run-'));
    const directory = join(runDirectory, 'work');
    const home = join(runDirectory, 'home');
    const dataDir = join(runDirectory, 'store');
    mkdirSync(directory);
    mkdirSync(join(home, '.codex'), { recursive: true });
    const task = agentCliTask(directory, `m-${Math.random().toString(36).slice(2, 10)}`);
    prepareAgentCliTask(task);
    const upstream = await startScriptedAgentUpstream(task);
    try {
      const proxy = await startWindowingProxy(upstream.url, dataDir);
      // In front of the proxy, to see the headers it answers with.
      const tap = await startHeaderTap(proxy.url);
      proxiesToClose.push(tap.close);
      for (const [turnIndex, turn] of task.turns.entries()) {
        const result = await cli.runTurn(binaries, task, turnIndex, tap.url, home);
        expect(result.exitCode, `turn ${turnIndex + 1} exited with ${String(result.exitCode)}\n${result.stderr}\n${result.stdout}`).toBe(0);
        expect(result.stdout).toContain(turn.doneSentence);
      }
      for (const [file, content] of Object.entries(expectedFiles(task))) expect(readFileSync(join(directory, file), 'utf8')).toBe(content);

      const requests = upstream.received.filter((request) => request.path.split('?')[0] === cli.endpoint);
      // Each turn: the read, the write, the final text.
      expect(requests).toHaveLength(task.turns.length * 3);
      const model = String((requests[0]?.body as { model?: unknown }).model);
      // The counter the proxy loads for the model: exact o200k for Codex's, the estimate for Claude's.
      const counter = await loadTokenCounter({ targets: [{ provider: cli.api, model }] });
      for (const [index, request] of requests.entries()) {
        expect(request.headers[cli.keyHeader[0]]).toBe(cli.keyHeader[1]);
        const { system, tools, messages } = conversationOf(request);
        const verdict = judgeWindow(messages.filter(isModelMessage), { counter, provider: cli.api, model, system: system ?? '', tools: tools ?? [], budgetTokens: BUDGET_TOKENS });
        expect(verdict, `request ${index + 1}`).toMatchObject({ orphans: 0, startsWithNonUser: false, overBudget: cli.fitsBudget ? false : verdict.overBudget });
        // Over budget only when nothing more could go: the latest exchange alone.
        if (verdict.overBudget) expect(detectExchanges(messages), `request ${index + 1} is over budget`).toHaveLength(1);
        // The environment the command line sent is never left out, and goes upstream as it came.
        expect(cli.hasEnvironment(request, task), `request ${index + 1} carries the environment`).toBe(true);
      }
      // The second turn's last request holds that turn, but not the first (its notes alone are about 4k tokens).
      const lastRequest = JSON.stringify(requests.at(-1)?.body);
      expect(lastRequest).toContain(JSON.stringify(task.turns[1]!.prompt).slice(1, -1));
      expect(lastRequest).not.toContain(`marker: ${task.marker}`);

      // The proxy's answers said so: the second turn's window left the first exchange out.
      const answered = tap.answers.filter((answer) => answer.path.split('?')[0] === cli.endpoint);
      expect(answered.map((answer) => answer.headers['x-sliding-context-evicted-exchanges'])).toEqual(['0', '0', '0', '1', '1', '1']);
      expect(new Set(answered.map((answer) => answer.headers['x-sliding-context-agent'])).size).toBe(1);

      // As a user would, from another terminal while the proxy runs: one agent, its first exchange out of the window.
      await proxy.settled();
      const agents = await slidingContextCli(['agents', '--json'], dataDir);
      expect(agents.exitCode, agents.stderr).toBe(0);
      const listed = JSON.parse(agents.stdout) as { agentId: string; parentId: string | null; provider: string; model: string }[];
      expect(listed).toMatchObject([{ parentId: null, provider: cli.api, model }]);
      const agentId = listed[0]!.agentId;
      const history = await slidingContextCli(['history', agentId, '--json'], dataDir);
      expect(history.exitCode, history.stderr).toBe(0);
      const report = JSON.parse(history.stdout) as { budgetTokens: number; totalTokens: number; exchanges: { outOfWindow: string | null }[] };
      expect(report.budgetTokens).toBe(BUDGET_TOKENS);
      expect(report.exchanges.map((exchange) => exchange.outOfWindow)).toEqual(['evicted', null]);
      const shown = await slidingContextCli(['history', agentId], dataDir);
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/Window [\d,]+ \/ 11,000 tokens · 1 exchange in, 1 out/);
    } finally {
      await upstream.close();
    }
  }, 2 * RUN_TIMEOUT_MS + 20_000);
});
