/**
 * A PGlite directory admits one process; the one holding it serves the store to the others over
 * a unix socket beside it, `<dir>.sock` (owner only, like the directory). A request names one
 * store operation (a read, or a whole write) and the holder runs it as one call of its own
 * `HistoryStore`: its transactions are the holder's, so a remote write and the holder's own
 * writes never share one, and the store's rules (seqs, `STALE_WINDOW`) hold as on a server.
 */
import { chmodSync, mkdtempSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { HistoryStore } from './history-store.js';
import { decodeWire, encodeWire, errorAnswer, type WireAnswer, type WireRequest } from './store-wire.js';

/** The store operations served: each is one call of the holder's store. */
export const SERVED_OPERATIONS = [
  'createAgent',
  'renameAgent',
  'updateAgentMeta',
  'createAgentWithMessages',
  'append',
  'fork',
  'history',
  'windowTail',
  'visibleLength',
  'visible',
  'outline',
  'timeline',
  'recordRanges',
  'ranges',
  'lastSeq',
  'agentMeta',
  'listAgents',
  'searchHistory',
  'readHistoryMessage',
  'findStoredPrefix',
] as const satisfies readonly (keyof HistoryStore)[];

export type ServedOperation = (typeof SERVED_OPERATIONS)[number];

/** The longest socket path, in bytes, every system takes (macOS 103, Linux 107): a longer one is cut short. */
const SOCKET_PATH_LIMIT = 103;

/** The socket beside a PGlite directory through which its holder serves it. */
export function storeSocketPath(dataDir: string): string {
  return `${dataDir}.sock`;
}

/** True when a socket can be bound at `path` as it is: not cut short to another name. */
export function fitsSocketPath(path: string): boolean {
  return Buffer.byteLength(path) <= SOCKET_PATH_LIMIT;
}

/** Where the socket is bound before it takes its name: a fresh folder beside it, `<dir>.sock-XXXXXX/s`. */
const BOUND_SUFFIX_LENGTH = '-XXXXXX/s'.length;

/** True when a store in `dataDir` can be served: the path its socket is bound at fits a socket's. */
export function canServe(dataDir: string): boolean {
  return fitsSocketPath(`${storeSocketPath(dataDir)}${'x'.repeat(BOUND_SUFFIX_LENGTH)}`);
}

/**
 * A store being served; `stop` lets running operations finish, then closes every connection. The
 * socket stays, answering no one, until the directory's lock is released (see open-database.ts):
 * a process that finds it so knows the holder is closing, and waits for it.
 */
export interface StoreService {
  stop(): Promise<void>;
}

function isServed(operation: unknown): operation is ServedOperation {
  return typeof operation === 'string' && (SERVED_OPERATIONS as readonly string[]).includes(operation);
}

/** Runs one request on the holder's store. */
async function perform(store: HistoryStore, request: WireRequest): Promise<unknown> {
  if (!isServed(request.operation)) {
    throw new SlidingContextError('STORE_UNAVAILABLE', `The process ${process.pid} holding the store does not serve "${request.operation}": it runs another version of sliding-context.`);
  }
  const args = decodeWire(request.args);
  if (!Array.isArray(args)) throw new SlidingContextError('UNEXPECTED_RESPONSE', `The request for "${request.operation}" carries no argument list.`);
  const operation: unknown = Reflect.get(store, request.operation);
  return Reflect.apply<HistoryStore, unknown[], Promise<unknown>>(operation as (...args: unknown[]) => Promise<unknown>, store, args);
}

/** Listens on `path` (a fresh name in a folder only the owner can enter), then owner only. */
function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Serves `store` (open on the PGlite directory `dataDir`, whose lock this process holds) on
 * {@link storeSocketPath}. The socket is made owner only before it takes its name, replacing a
 * file a killed holder left there. Returns undefined when it cannot be served (a path too long
 * for a socket, over about 90 bytes, say): other processes are then refused with `STORE_LOCKED`.
 */
export async function serveStore(store: HistoryStore, dataDir: string): Promise<StoreService | undefined> {
  const connections = new Set<Socket>();
  const running = new Set<Promise<unknown>>();
  let stopping = false;
  const answer = (socket: Socket, reply: WireAnswer) => {
    if (socket.writable) socket.write(`${JSON.stringify(reply)}\n`);
  };
  const handle = (socket: Socket, line: string) => {
    let request: WireRequest;
    try {
      request = JSON.parse(line) as WireRequest;
    } catch {
      socket.destroy();
      return;
    }
    if (stopping) {
      // Not run: the reader may open the store itself once this process has let it go.
      const message = `The process ${process.pid} holding the store closed it while this command ran; run the command again.`;
      answer(socket, { id: request.id, error: { code: 'STORE_UNAVAILABLE', message, notPerformed: true } });
      return;
    }
    const work = perform(store, request).then(
      (result) => { answer(socket, { id: request.id, result: encodeWire(result) }); },
      (error: unknown) => { answer(socket, errorAnswer(request.id, error)); },
    );
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  const server = createServer((socket) => {
    // First, so that a reader whose connection is cut before this knows none of its requests ran
    // (one still waiting to be accepted when the holder stops listening is cut so).
    answer(socket, { serving: true });
    connections.add(socket);
    socket.unref();
    socket.setEncoding('utf8');
    let buffered = '';
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        handle(socket, buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
      }
    });
    // A reader that went away: nothing to tell it.
    socket.on('error', () => undefined);
    socket.on('close', () => connections.delete(socket));
  });
  const socketPath = storeSocketPath(dataDir);
  if (!canServe(dataDir)) return undefined;
  let folder: string | undefined;
  try {
    folder = mkdtempSync(`${socketPath}-`);
    const bound = join(folder, 's');
    await listen(server, bound);
    chmodSync(bound, 0o600);
    renameSync(bound, socketPath);
  } catch {
    server.close();
    return undefined;
  } finally {
    if (folder !== undefined) {
      // Empty once the socket is renamed; a recursive remove costs ten times a listen.
      try {
        rmSync(join(folder, 's'), { force: true });
        rmdirSync(folder);
      } catch {
        // Left behind: a folder only the owner can enter, holding nothing that answers.
      }
    }
  }
  // Serving alone keeps no process running.
  server.unref();
  return {
    async stop() {
      // Requests that came while the holder was busy (PGlite never yields to the event loop) get
      // a turn to start first; one read later is refused unrun, and its reader runs it itself.
      for (let round = 0; round < 2; round++) await new Promise((resolve) => setImmediate(resolve));
      stopping = true;
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await Promise.allSettled([...running]);
      for (const socket of connections) {
        // Every request run was answered: a reader's request it has no answer to was not run (one
        // that arrives from now on is not even read), so the reader may run it itself.
        answer(socket, { closing: true });
        // Ended, so that answers already written arrive; a reader that does not close is cut off.
        socket.end();
        // Waited for: unreferenced, a process with nothing else to do (an idle database) would exit
        // here, in the middle of closing its store.
        socket.ref();
        setTimeout(() => socket.destroy(), 2_000).unref();
      }
      await closed;
    },
  };
}
