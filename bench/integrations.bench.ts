/**
 * The integrations in each framework's real agent loop against the framework's own answer: a
 * scripted coding session of 200 turns (seeded agent traffic, tool loops with parallel calls)
 * under a small budget, every configuration against a loopback OpenAI-compatible server that
 * answers at once. Per configuration: the time its context hook takes per turn (the model calls
 * it makes left out), whether that time grows with the history (the last 20 turns against the
 * first 20), and every request the server received, judged: tokens counted exactly for gpt-4o,
 * orphaned tool calls or results, over the budget, a start that is not the user's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelMessage } from '../src/message/message.js';
import { loadTokenCounter } from '../src/tokens/load-token-counter.js';
import type { TokenCounter } from '../src/tokens/token-counter.js';
import { formatMs, formatRatio, markdownTable } from './_table.js';
import { aiSdkNoPruning, aiSdkPruneMessages, aiSdkSlidingContext } from './integrations/ai-sdk-runners.js';
import { langchainSlidingContext, langchainSummarization, langchainTrimMessages } from './integrations/langchain-runners.js';
import type { RunnerContext, SessionRunner } from './integrations/session-runner.js';
import { mastraSlidingContext, mastraTokenLimiter } from './peers/mastra-agent-runner.js';
import { TRAFFIC_SEED, TRAFFIC_SYSTEM, TRAFFIC_TOOLS } from './workloads/agent-traffic.js';
import { memoizedCounter } from './workloads/read-openai-request.js';
import { type ScriptedSession, scriptedSession } from './workloads/scripted-session.js';
import { emptyTally, type RequestTally, type SessionServer, startFixedTextServer, startSessionServer } from './workloads/session-server.js';

const BUDGET = 16_000;
const MODEL = 'gpt-4o';
const WARM_UP_TURNS = 3;
/** Turns compared at each end of the session for growth. */
const ENDS = 20;
/** A peer that has run this long stops after its current turn; its row says how many turns it ran. */
const TIME_LIMIT_MS = 120_000;

interface Configuration {
  readonly name: string;
  /** Ours: always the whole session, whatever it takes, so that its last turns are measured. */
  readonly ours?: boolean;
  readonly make: ((context: RunnerContext) => SessionRunner | Promise<SessionRunner>) | undefined;
  /** Why a configuration without `make` is not run. */
  readonly absent?: string;
}

const configurations: readonly Configuration[] = [
  { name: 'AI SDK, no pruning', make: aiSdkNoPruning },
  { name: 'AI SDK pruneMessages (prepareStep)', make: aiSdkPruneMessages },
  { name: 'AI SDK + slidingContext (ours)', make: aiSdkSlidingContext, ours: true },
  { name: 'LangChain trimMessages (wrapModelCall)', make: langchainTrimMessages },
  { name: 'LangChain summarizationMiddleware', make: langchainSummarization },
  { name: 'LangChain + slidingContextMiddleware (ours)', make: langchainSlidingContext, ours: true },
  { name: 'Mastra TokenLimiterProcessor', make: mastraTokenLimiter },
  { name: 'Mastra + sliding-context processor (ours)', make: mastraSlidingContext, ours: true },
];

/** `SLIDING_CONTEXT_BENCH_CONFIG=text`: only the configurations whose name holds it (case ignored), to time one framework alone. */
function selectedConfigurations(): readonly Configuration[] {
  const only = process.env.SLIDING_CONTEXT_BENCH_CONFIG?.toLowerCase();
  return only === undefined || only === '' ? configurations : configurations.filter(({ name }) => name.toLowerCase().includes(only));
}

export interface Measured {
  readonly name: string;
  readonly hookMs: (number | undefined)[];
  readonly loopMs: number[];
  readonly tally: RequestTally;
  readonly stoppedEarly: boolean;
  readonly failure?: string;
}

/**
 * The scripted requests over the budget even when they hold nothing but the system prompt, the
 * tools and the current exchange so far (the turn's request and its tool loop): no window can
 * keep those within budget without cutting into the exchange.
 */
function overBudgetAlone(session: ScriptedSession, counter: TokenCounter): number {
  let over = 0;
  for (const turn of session.turns) {
    const exchange: ModelMessage[] = [{ role: 'user', content: turn.user }];
    for (const step of [...turn.steps, undefined]) {
      const tokens = counter.count({ provider: 'openai', model: MODEL, request: { system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS, messages: exchange } }).tokens;
      if (tokens > BUDGET) over++;
      if (!step) break;
      exchange.push({ role: 'assistant', content: [...(step.text === undefined ? [] : [{ type: 'text' as const, text: step.text }]), ...step.calls.map((call) => ({ type: 'tool-call' as const, ...call }))] });
      // One tool message a result, as OpenAI receives them.
      for (const call of step.calls) {
        exchange.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'text', value: session.outputs.get(call.toolCallId) ?? '' } }] });
      }
    }
  }
  return over;
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);

async function measure(configuration: Configuration, input: { server: SessionServer; context: RunnerContext; users: readonly string[] }): Promise<Measured> {
  const { server, context, users } = input;
  const make = configuration.make;
  const hookMs: (number | undefined)[] = [];
  const loopMs: number[] = [];
  if (!make) return { name: configuration.name, hookMs, loopMs, tally: server.takeTally(), stoppedEarly: false, failure: configuration.absent ?? 'not run' };
  let stoppedEarly = false;
  try {
    // A short session first, on a store of its own, so that no first turn pays for loading code. Both are
    // set up before any turn: opening a store blocks the process for seconds, and the server would close the
    // client's idle keep-alive connection meanwhile.
    const warmUp = await make({ ...context, dataDir: join(context.dataDir, 'warm-up'), conversationId: `${context.conversationId}-warm-up` });
    let runner: SessionRunner | undefined;
    try {
      runner = await make({ ...context, dataDir: join(context.dataDir, 'session') });
      for (const [index, user] of users.slice(0, WARM_UP_TURNS).entries()) {
        server.beginTurn(index);
        await warmUp.turn(user);
      }
      server.takeTally();
      server.takeServerMs();
      const started = performance.now();
      for (const [index, user] of users.entries()) {
        server.beginTurn(index);
        const start = performance.now();
        await runner.turn(user);
        loopMs.push(performance.now() - start - server.takeServerMs());
        hookMs.push(runner.takeHookMs());
        if (configuration.ours !== true && performance.now() - started > TIME_LIMIT_MS && index < users.length - 1) {
          stoppedEarly = true;
          break;
        }
      }
    } finally {
      await warmUp.close();
      await runner?.close();
    }
    return { name: configuration.name, hookMs, loopMs, tally: server.takeTally(), stoppedEarly };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { name: configuration.name, hookMs, loopMs, tally: server.takeTally(), stoppedEarly, failure: `failed at turn ${loopMs.length + 1}: ${message.split('\n')[0] ?? ''}` };
  }
}

function row(measured: Measured): (string | number)[] {
  const { tally, hookMs, loopMs } = measured;
  const timed = hookMs.filter((ms): ms is number => ms !== undefined);
  const ends = Math.min(ENDS, Math.floor(timed.length / 2));
  const growth = timed.length === 0 || ends === 0 ? '—' : formatRatio(mean(timed.slice(-ends)) / mean(timed.slice(0, ends)));
  const turns = measured.stoppedEarly ? `${loopMs.length} (time limit)` : loopMs.length;
  return [
    measured.name,
    turns,
    tally.requests,
    timed.length === 0 ? '—' : formatMs(mean(timed)),
    growth,
    loopMs.length === 0 ? '—' : formatMs(mean(loopMs)),
    tally.requests === 0 ? '—' : Math.round(tally.tokens / tally.requests).toLocaleString('en-US'),
    tally.requests === 0 ? '—' : tally.maxTokens.toLocaleString('en-US'),
    tally.withOrphans,
    tally.overBudget,
    tally.nonUserStart,
    tally.withoutRequest,
  ];
}

/** The configuration at `index` of those selected, measured over a session of `turns`, with its own servers and store. */
export async function measureConfiguration(index: number, turns: number): Promise<Measured> {
  const configuration = selectedConfigurations()[index];
  if (!configuration) throw new RangeError(`no integration configuration at ${index}`);
  const session = scriptedSession(turns);
  const counter = memoizedCounter(await loadTokenCounter({ targets: [{ provider: 'openai', model: MODEL }] }));
  const server = await startSessionServer({ session, counter, model: MODEL, budgetTokens: BUDGET });
  const summarizer = await startFixedTextServer('Summary: the agent read, searched and edited the modules asked about, ran the tests after each change and reported what it did.', MODEL);
  const directory = mkdtempSync(join(tmpdir(), 'sliding-context-integrations-'));
  try {
    const context: RunnerContext = {
      modelUrl: server.url, summarizerUrl: summarizer.url, model: MODEL, budgetTokens: BUDGET, system: TRAFFIC_SYSTEM, tools: TRAFFIC_TOOLS,
      outputs: session.outputs, counter, dataDir: directory, conversationId: `integrations-${index}`,
    };
    return await measure(configuration, { server, context, users: session.turns.map((turn) => turn.user) });
  } finally {
    await server.close();
    await summarizer.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Measures one configuration in a fresh process (`integrations/measure-one.ts`), so that what one
 * framework leaves in the heap (Mastra's and LangChain's module state, a peer's large prompts)
 * does not weigh on the timings of the next.
 */
function measureInFreshProcess(index: number, name: string, turns: number): Measured {
  const script = fileURLToPath(new URL('integrations/measure-one.ts', import.meta.url));
  let output: string;
  try {
    output = execFileSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', script, String(index), String(turns)], {
      encoding: 'utf8', maxBuffer: 2 ** 24, stdio: ['ignore', 'pipe', 'inherit'],
    });
  } catch (error) {
    // A process that died is one configuration's failure, shown in its row; the others still run.
    const failure = `its process failed: ${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''}`;
    return { name, hookMs: [], loopMs: [], tally: emptyTally(), stoppedEarly: false, failure };
  }
  const line = output.split('\n').find((text) => text.startsWith('MEASURED '));
  if (line === undefined) return { name, hookMs: [], loopMs: [], tally: emptyTally(), stoppedEarly: false, failure: 'its process printed no measurements' };
  const measured = JSON.parse(line.slice('MEASURED '.length)) as Omit<Measured, 'hookMs'> & { hookMs: (number | null)[] };
  return { ...measured, hookMs: measured.hookMs.map((ms) => ms ?? undefined) };
}

/** `turns`: the session's length (default 200; `--quick`: 40). Each configuration runs in a process of its own. */
export async function runIntegrationBenchmarks(quick: boolean, turns: number = quick ? 40 : 200): Promise<string[]> {
  const session = scriptedSession(turns);
  const counter = memoizedCounter(await loadTokenCounter({ targets: [{ provider: 'openai', model: MODEL }] }));
  const results: Measured[] = [];
  for (const [index, configuration] of selectedConfigurations().entries()) {
    process.stderr.write(`integrations: ${configuration.name}, ${turns} turns\n`);
    results.push(measureInFreshProcess(index, configuration.name, turns));
  }
  const steps = session.turns.reduce((sum, turn) => sum + turn.steps.length + 1, 0);
  const floor = overBudgetAlone(session, counter);
  const header = [
    'configuration', 'turns', 'requests', 'hook ms/turn', `last ${ENDS} / first ${ENDS}`, 'loop ms/turn (server left out)',
    'mean request, tokens', 'largest request, tokens', 'requests with orphans', 'over budget', 'non-user start', 'without the turn\'s request',
  ];
  const notes = results.flatMap((measured) => (measured.failure ? [`- ${measured.name}: ${measured.failure}`] : []));
  return [
    `### Integrations: a ${turns}-turn session in each framework's agent loop, budget ${BUDGET.toLocaleString('en-US')} tokens (goal: ours zero orphans and zero over budget, last ${ENDS} turns within 1.5× of the first ${ENDS})\n\n`
    + `${markdownTable(header, results.map(row))}\n\n`
    + `Seeded coding traffic (seed ${TRAFFIC_SEED}): ${turns} user requests, ${steps.toLocaleString('en-US')} model calls scripted (tool loops of 0 to 6 steps, three steps in ten with 2 to 4 parallel calls, one tool output in twenty 6 to 30 KB), served by a loopback OpenAI Chat Completions server that answers at once; ${WARM_UP_TURNS} warm-up turns on a store of their own first. `
    + '"hook ms/turn": time in the middleware or processor (our middleware, `pruneMessages` in `prepareStep`, the LangChain middleware, the Mastra processors\' hooks), the model call it wraps and a summarizer\'s request left out, ours with its PGlite store writes. '
    + '"loop ms/turn": the framework call\'s wall time less the server\'s. Requests are judged as the server received them, counted exactly for gpt-4o. '
    + `${floor} of the ${steps.toLocaleString('en-US')} scripted requests are over the budget with the current exchange alone (its request and tool loop so far), so a window that keeps the latest exchange whole sends them over it. `
    + `A peer stops after ${TIME_LIMIT_MS / 1000} s; ours runs every turn.`
    + (notes.length > 0 ? `\n\n${notes.join('\n')}` : ''),
  ];
}
