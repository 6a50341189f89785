import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/_test-cli.js';
import { digestSummarizer } from '../condense/digest-summarizer.js';
import { type Conversation, openConversation } from '../conversation/conversation.js';
import { HistoryStore } from '../store/history-store.js';
import { fixTurn } from '../testing/message-builders.js';
import { createServerDatabase } from '../testing/server-database.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import { HeldAgentHistory, type HeldHistoryStore } from '../views/held-agent-history.js';
import { startWebServer } from './start-web-server.js';

const counter = await loadTokenCounter();
const target = { provider: 'openai', model: 'gpt-4o' };
const turn = (i: number) => fixTurn(i, { outputLines: 4, padding: ` ${'Context. '.repeat(10)}` });

/** The store, and what `history <agent> --json --all` prints of it. */
interface Engine {
  readonly store: HistoryStore;
  printed(agentId: string): Promise<unknown>;
  close(): Promise<void>;
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `history <agent> --json --all` on a directory this process holds: the built CLI, in a process of its own, reads it through this one. */
async function printedByBuiltCli(dataDir: string, agentId: string): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'dist/cli/main.js'), 'history', agentId, '--json', '--all', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '', NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 2 ** 28,
  });
  return JSON.parse(stdout);
}

/**
 * The store seen through a wrapper that notes each outline and timeline read: `whole`, or
 * `since` for a read of the rows after a seq. It reads the store itself; nothing is faked.
 */
function watched(store: HistoryStore, reads: string[]): HeldHistoryStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'outline' && property !== 'timeline') return value.bind(target) as unknown;
      return (agentId: string, options?: { afterSeq?: number }) => {
        reads.push(`${property}:${options?.afterSeq === undefined ? 'whole' : 'since'}`);
        return (value as (agentId: string, options?: unknown) => unknown).call(target, agentId, options);
      };
    },
  });
}

/** Resolves once the store has heard a write made now (so every write before it was heard too). */
async function settled(store: HistoryStore, sentinel: string): Promise<void> {
  let heard: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const stop = await store.onWrite((agentId) => {
    if (agentId === sentinel) heard();
  });
  await store.renameAgent(sentinel, `settled ${Date.now()}`);
  await done;
  await stop();
}

/**
 * Drives a conversation through appends, evictions, a summary, a mark and a rewind, a clear and
 * a fork, and checks after each step that the served `/api/agents/<id>/history` (held by the
 * server and brought up to date after each write) is exactly what `history <id> --json --all`
 * prints but for the window's messages, and that a held history read only the rows stored
 * since, unless a clear or a rewind took back what it had read.
 */
async function expectHeldHistoryExact(engine: Engine): Promise<void> {
  const { store } = engine;
  const server = await startWebServer({ store, port: 0, assetsDir: '/nonexistent' });
  const sentinel = await store.createAgent({}, { name: 'sentinel' });
  let conversation: Conversation = await openConversation({
    store, ...target, counter, budgetTokens: 800, system: 'Be terse.', condense: { summarizer: digestSummarizer() },
  });
  const reads: string[] = [];
  let held: HeldAgentHistory | undefined;
  try {
    const check = async (what: string, reading: 'since' | 'whole') => {
      await settled(store, sentinel);
      const { agentId } = conversation;
      // The page reads a row's messages itself: the served history leaves out the window's.
      const { messages: _windowMessages, ...printed } = (await engine.printed(agentId)) as Record<string, unknown>;
      const served: unknown = await (await fetch(`${server.url}api/agents/${agentId}/history`)).json();
      expect(served, `served, ${what}`).toEqual(printed);
      reads.length = 0;
      held = held?.agentId === agentId ? await held.update(watched(store, reads)) : await HeldAgentHistory.read(watched(store, reads), agentId);
      expect(JSON.parse(JSON.stringify(held.json)), `held, ${what}`).toEqual(printed);
      // Brought up to date, it reads only what is new; after a clear or a rewind it reads the whole history again.
      const whole = reads.some((read) => read.endsWith(':whole'));
      expect(whole, `${what}: ${reads.join(', ')}`).toBe(reading === 'whole');
    };
    let next = 0;
    const turns = async (count: number) => {
      for (let index = 0; index < count; index++) {
        await conversation.append(turn(next++));
        await conversation.endTurn();
      }
    };
    await check('the first read', 'whole');
    for (let round = 0; round < 6; round++) {
      await turns(2);
      await check(`after ${next} turns`, 'since');
    }
    const planned = held?.json;
    expect(planned?.summary, 'a summary was made').not.toBeNull();
    expect(planned?.exchanges.some((exchange) => !exchange.inWindow), 'exchanges left the window').toBe(true);
    await conversation.mark('before-detour');
    await turns(2);
    await check('after a mark and two turns', 'since');
    await conversation.rewind('before-detour');
    await check('after a rewind', 'whole');
    await turns(1);
    await check('after a turn past the rewind', 'since');
    await conversation.clear();
    await check('after a clear', 'whole');
    await turns(2);
    await check('after turns past the clear', 'since');
    const child = await conversation.fork();
    await check('the parent after a fork', 'since');
    conversation = child;
    await turns(2);
    await check('the fork after its own turns', 'whole');
    await turns(1);
    await check('the fork after another turn', 'since');
  } finally {
    await server.close();
    await engine.close();
  }
}

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

// The PGlite half reads through the built CLI (`npm run build`), as a second terminal would.
describe('a held history, brought up to date after each write, on a PGlite directory', () => {
  it('is served exactly as history --json --all prints it, reading only the rows stored since', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-held-'));
    directories.push(directory);
    const dataDir = join(directory, 'data');
    const store = await HistoryStore.open({ dataDir });
    await expectHeldHistoryExact({ store, printed: (agentId) => printedByBuiltCli(dataDir, agentId), close: () => store.close() });
  }, 300_000);
});

const serverUrl = process.env.DATABASE_URL;
describe.skipIf(!serverUrl)('a held history on a server', () => {
  it('is served exactly as history --json --all prints it, reading only the rows stored since', async () => {
    const database = await createServerDatabase(serverUrl ?? '', 'held');
    const store = await HistoryStore.open({ databaseUrl: database.url });
    await expectHeldHistoryExact({
      store,
      printed: async (agentId) => JSON.parse((await runCli(['history', agentId, '--json', '--all', '--database-url', database.url])).stdout) as unknown,
      close: async () => {
        await store.close();
        await database.drop();
      },
    });
  }, 300_000);
});
if (!serverUrl) console.warn('The PostgreSQL server half of the held history tests is skipped: DATABASE_URL is not set.');
