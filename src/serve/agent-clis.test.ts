/**
 * Real agent command lines that no one here wrote, Codex (`codex exec`) and Claude Code (`claude -p`),
 * run a scripted two-turn, two-tool task against a scripted loopback upstream through the base URL
 * they are given. The command lines are installed on demand (src/testing/agent-clis, about 800 MB).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isModelMessage } from '../message/message.js';
import { convertFrom, detectFormat } from '../providers/wire-format.js';
import { agentCliTask, type AgentCliTask, expectedFiles, prepareAgentCliTask } from '../testing/agent-cli-task.js';
import { type AgentCliBinaries, installAgentClis } from '../testing/install-agent-clis.js';
import { judgeWindowShape } from '../testing/judge-window.js';
import type { ReceivedRequest } from '../testing/loopback-server.js';
import { startScriptedAgentUpstream } from '../testing/scripted-agent-upstream.js';

/** The key each command line sends; the upstream checks it arrived untouched. */
const API_KEY = 'sk-scripted-test-key';
/** Longest a single command line run may take before the test gives up on it, in milliseconds. */
const RUN_TIMEOUT_MS = 45_000;

/** Proxies started for a test, closed after it. */
const proxiesToClose: (() => Promise<void>)[] = [];

/**
 * The base URL the command lines are pointed at, for an upstream at `upstreamUrl`.
 * THE PROXY GOES HERE: start the proxy (a store in memory, both upstreams `upstreamUrl`, a budget
 * of 11,000 tokens), push its and its store's `close` to `proxiesToClose`, return its URL, and set
 * `WINDOW_SLIDES` to true. At 11,000 tokens both command lines' second turns leave the first out;
 * at 12,000 Codex's do not (its requests count about 9,500 tokens of instructions and tools alone).
 */
async function proxyBaseUrl(upstreamUrl: string): Promise<string> {
  return Promise.resolve(upstreamUrl);
}

/** Whether the upstream sees the first turn slid out of the second turn's last request. */
const WINDOW_SLIDES = false;

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

/** One agent command line: how to run each turn of the task against a base URL. */
interface AgentCli {
  readonly name: string;
  /** The endpoint the command line sends its turns to. */
  readonly endpoint: string;
  readonly runTurn: (binaries: AgentCliBinaries, task: AgentCliTask, turnIndex: number, baseUrl: string, home: string) => Promise<Run>;
  /** The header that carries the key, and how the key appears in it. */
  readonly keyHeader: readonly [name: string, value: string];
}

const codex: AgentCli = {
  name: 'Codex (codex exec)',
  endpoint: '/v1/responses',
  keyHeader: ['authorization', `Bearer ${API_KEY}`],
  runTurn: (binaries, task, turnIndex, baseUrl, home) => {
    const config = [
      'model_provider=scripted',
      'model_providers.scripted.name="scripted"',
      `model_providers.scripted.base_url="${baseUrl}/v1"`,
      'model_providers.scripted.wire_api="responses"',
      'model_providers.scripted.env_key="SCRIPTED_API_KEY"',
      'model_providers.scripted.request_max_retries=0',
      'model_providers.scripted.stream_max_retries=0',
      'analytics.enabled=false',
      'check_for_update_on_startup=false',
    ].flatMap((setting) => ['-c', setting]);
    const resume = turnIndex === 0 ? [] : ['resume', '--last'];
    const args = [binaries.codex, 'exec', ...resume, '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '-m', 'gpt-5.5', ...config, task.turns[turnIndex]!.prompt];
    return run(process.execPath, args, task.directory, { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: join(home, '.codex'), SCRIPTED_API_KEY: API_KEY });
  },
};

const claudeCode: AgentCli = {
  name: 'Claude Code (claude -p)',
  endpoint: '/v1/messages',
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
  it('completes the two-turn, two-tool task through the base URL it is given, and the upstream receives whole windows', async () => {
    const root = mkdtempSync(join(scratch, 'run-'));
    const directory = join(root, 'work');
    const home = join(root, 'home');
    mkdirSync(directory);
    mkdirSync(join(home, '.codex'), { recursive: true });
    const task = agentCliTask(directory, `m-${Math.random().toString(36).slice(2, 10)}`);
    prepareAgentCliTask(task);
    const upstream = await startScriptedAgentUpstream(task);
    try {
      const baseUrl = await proxyBaseUrl(upstream.url);
      for (const [turnIndex, turn] of task.turns.entries()) {
        const result = await cli.runTurn(binaries, task, turnIndex, baseUrl, home);
        expect(result.exitCode, `turn ${turnIndex + 1} exited with ${String(result.exitCode)}\n${result.stderr}\n${result.stdout}`).toBe(0);
        expect(result.stdout).toContain(turn.doneSentence);
      }
      for (const [file, content] of Object.entries(expectedFiles(task))) expect(readFileSync(join(directory, file), 'utf8')).toBe(content);

      const requests = upstream.received.filter((request) => request.path.split('?')[0] === cli.endpoint);
      // Each turn: the read, the write, the final text.
      expect(requests).toHaveLength(task.turns.length * 3);
      for (const request of requests) {
        expect(request.headers[cli.keyHeader[0]]).toBe(cli.keyHeader[1]);
        expect(judgeWindowShape(conversationOf(request).messages.filter(isModelMessage))).toEqual({ orphans: 0, startsWithNonUser: false });
      }
      // The second turn's requests carry the whole first turn again, notes and all (about 5k tokens).
      const lastRequest = JSON.stringify(requests.at(-1)?.body);
      expect(lastRequest).toContain(JSON.stringify(task.turns[1]!.prompt).slice(1, -1));
      expect(!lastRequest.includes(`marker: ${task.marker}`)).toBe(WINDOW_SLIDES);
    } finally {
      await upstream.close();
    }
  }, 2 * RUN_TIMEOUT_MS + 10_000);
});
