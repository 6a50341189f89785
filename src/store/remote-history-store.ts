/**
 * The store of a PGlite directory another process holds, reached through the socket that
 * process serves ({@link serveStore}). Every operation runs in the holder as one call of its own
 * store; only `deriveSavedView` derives here, and saves nothing (the holder's writes would not
 * drop what a reader saved). When the holder closes the store meanwhile, what it did not run
 * (and any read it left unanswered) runs on the store opened here once it is let go, or, when
 * another process took the directory first, through that process.
 */
import { createConnection, type Socket } from 'node:net';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import type { LockHolder } from './directory-lock.js';
import { type AppendOptions, HistoryStore, type OpenStoreOptions } from './history-store.js';
import type { OpenDatabase } from './open-database.js';
import { fitsSocketPath, type ServedOperation, storeSocketPath } from './serve-store.js';
import { decodeWire, encodeWire, type WireAnswer } from './store-wire.js';

const heldElsewhere = () => new SlidingContextError('STORE_UNAVAILABLE', 'This store is held by another process: its operations run there.');

/** What a remote store has instead of a database: every operation is sent to the holder. */
const HELD_ELSEWHERE: OpenDatabase = {
  get db(): never {
    throw heldElsewhere();
  },
  engine: 'pglite',
  dataDir: undefined,
  directTransaction: () => Promise.reject(heldElsewhere()),
  close: () => Promise.resolve(),
};

type Operation<Name extends ServedOperation> = HistoryStore[Name];

/** Operations that only read: asked again of the store itself when the holder went away unanswering. */
const READS: ReadonlySet<ServedOperation> = new Set(['history', 'windowTail', 'visibleLength', 'visible', 'outline', 'timeline', 'ranges', 'lastSeq', 'agentMeta', 'listAgents', 'searchHistory', 'readHistoryMessage', 'findStoredPrefix']);

/** Errors of requests the holder refused without running them, as it closed the store. */
const notPerformed = new WeakSet<Error>();

/** How long a reader waits for a closing holder to let the directory go, in milliseconds. */
export const HANDOVER_PATIENCE_MS = 10_000;

/** One connection to a holder: requests numbered, answered in any order. */
class HolderConnection {
  readonly #socket: Socket;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  readonly #lost: SlidingContextError;
  #next = 1;
  #closed = false;
  /** Set when the holder said it stops serving: what it had not answered then, it did not run. */
  #closing = false;
  /** Set once the holder said it serves this connection: until then it read nothing of it. */
  #served = false;

  constructor(socket: Socket, dataDir: string, holder: LockHolder | undefined) {
    this.#socket = socket;
    const who = holder === undefined ? 'The process' : `Process ${holder.pid} (${holder.command})`;
    this.#lost = new SlidingContextError('STORE_UNAVAILABLE', `${who} holding the store ${dataDir} closed it before answering; run the command again.`);
    socket.setEncoding('utf8');
    let buffered = '';
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        let answer: WireAnswer;
        try {
          answer = JSON.parse(line) as WireAnswer;
        } catch {
          // Not the holder's protocol: what is pending fails as the connection closes.
          socket.destroy();
          return;
        }
        this.#settle(answer);
      }
    });
    // The close that follows rejects what is pending.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#closed = true;
      for (const { reject } of this.#pending.values()) reject(this.#closing || !this.#served ? this.#notRun() : this.#lost);
      this.#pending.clear();
    });
  }

  /** The error of a request the holder did not run: the store opened here runs it once the holder let it go. */
  #notRun(): SlidingContextError {
    const error = new SlidingContextError(this.#lost.code, this.#lost.message);
    notPerformed.add(error);
    return error;
  }

  #settle(answer: WireAnswer): void {
    if ('serving' in answer) {
      this.#served = true;
      return;
    }
    if ('closing' in answer) {
      this.#closing = true;
      return;
    }
    const pending = this.#pending.get(answer.id);
    if (pending === undefined) return;
    this.#pending.delete(answer.id);
    if (!('error' in answer)) {
      pending.resolve(decodeWire(answer.result));
      return;
    }
    const error = new SlidingContextError(answer.error.code, answer.error.message);
    if (answer.error.notPerformed === true) notPerformed.add(error);
    pending.reject(error);
  }

  /** True for the error of a request the holder may not have answered because it went away. */
  isLost(error: unknown): boolean {
    return error === this.#lost;
  }

  call(operation: ServedOperation, args: readonly unknown[]): Promise<unknown> {
    // Never sent, or sent to a holder that stops serving: nothing of it ran.
    if (this.#closed || this.#closing) return Promise.reject(this.#notRun());
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.write(`${JSON.stringify({ id, operation, args: encodeWire(args) })}\n`);
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#socket.once('close', resolve);
      this.#socket.end();
    });
  }
}

/** An append's options as sent: a callback and a signal stay here. */
function sentOptions<Options extends AppendOptions>(options: Options, agentId: string): Omit<Options, 'onProgress' | 'signal'> {
  const { onProgress: _onProgress, signal, ...sent } = options;
  if (signal?.aborted === true) {
    throw new SlidingContextError('ABORTED', `The append to agent ${agentId} was interrupted before it was sent; nothing of it was stored.`, { cause: signal.reason });
  }
  return sent;
}

/** A {@link HistoryStore} whose operations run in the process holding its directory. */
export class RemoteHistoryStore extends HistoryStore {
  readonly #connection: HolderConnection;
  /** Opens the directory once the holder went away: here, or through a holder that took it meanwhile. */
  readonly #reopen: () => Promise<HistoryStore>;
  /** The store opened once the holder went away: the operations left run on it. */
  #local: Promise<HistoryStore> | undefined;

  private constructor(connection: HolderConnection, reopen: () => Promise<HistoryStore>) {
    super(HELD_ELSEWHERE);
    this.#connection = connection;
    this.#reopen = reopen;
  }

  /**
   * Connects to the process serving the PGlite directory `dataDir`, or gives undefined when none
   * answers on its socket (no holder, or one that does not serve). `options` are those of the
   * store opened here if the holder goes away meanwhile; `reopen`, when given, opens the directory
   * then instead (and may reach a process that took it over).
   */
  static async connect(
    dataDir: string,
    holder: LockHolder | undefined,
    options: OpenStoreOptions = {},
    reopen: () => Promise<HistoryStore> = () => HistoryStore.open({ dataDir, create: false }, options),
  ): Promise<RemoteHistoryStore | undefined> {
    if (!fitsSocketPath(storeSocketPath(dataDir))) return undefined;
    const socket = createConnection(storeSocketPath(dataDir));
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      });
    } catch {
      socket.destroy();
      return undefined;
    }
    return new RemoteHistoryStore(new HolderConnection(socket, dataDir, holder), reopen);
  }

  #call<Name extends ServedOperation>(name: Name, args: Parameters<Operation<Name>>): ReturnType<Operation<Name>> {
    return this.#perform(name, args) as ReturnType<Operation<Name>>;
  }

  /**
   * Runs an operation in the holder. One the holder refused as it closed, or a read it went away
   * without answering, runs on the store opened here once the holder has let it go.
   */
  async #perform(name: ServedOperation, args: readonly unknown[]): Promise<unknown> {
    if (this.#local === undefined) {
      try {
        return await this.#connection.call(name, args);
      } catch (error) {
        const handOver = (error instanceof Error && notPerformed.has(error)) || (this.#connection.isLost(error) && READS.has(name));
        if (!handOver) throw error;
        this.#local ??= this.#openHere(error);
      }
    }
    const local = await this.#local;
    const operation = Reflect.get(local, name) as (...args: readonly unknown[]) => Promise<unknown>;
    return Reflect.apply<HistoryStore, readonly unknown[], Promise<unknown>>(operation, local, args);
  }

  /** Opens the directory once its holder let it go, or fails with `reason` after a while. */
  async #openHere(reason: unknown): Promise<HistoryStore> {
    for (const deadline = Date.now() + HANDOVER_PATIENCE_MS; ;) {
      try {
        return await this.#reopen();
      } catch (error) {
        if (!isSlidingContextError(error, 'STORE_LOCKED') || Date.now() > deadline) throw reason;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  override createAgent(...args: Parameters<Operation<'createAgent'>>) {
    return this.#call('createAgent', args);
  }

  override renameAgent(...args: Parameters<Operation<'renameAgent'>>) {
    return this.#call('renameAgent', args);
  }

  override updateAgentMeta(...args: Parameters<Operation<'updateAgentMeta'>>) {
    return this.#call('updateAgentMeta', args);
  }

  /** Sent whole; an interrupt after it left does not stop it, and progress is told once, at the end. */
  override async createAgentWithMessages(...[meta, messages, options = {}]: Parameters<Operation<'createAgentWithMessages'>>) {
    const result = await this.#call('createAgentWithMessages', [meta, messages, sentOptions(options, 'new')]);
    options.onProgress?.(messages.length, messages.length);
    return result;
  }

  /** Sent whole; an interrupt after it left does not stop it, and progress is told once, at the end. */
  override async append(...[agentId, messages, options = {}]: Parameters<Operation<'append'>>) {
    const result = await this.#call('append', [agentId, messages, sentOptions(options, agentId)]);
    options.onProgress?.(messages.length, messages.length);
    return result;
  }

  override fork(...args: Parameters<Operation<'fork'>>) {
    return this.#call('fork', args);
  }

  override history(...args: Parameters<Operation<'history'>>) {
    return this.#call('history', args);
  }

  override windowTail(...args: Parameters<Operation<'windowTail'>>) {
    return this.#call('windowTail', args);
  }

  override visibleLength(...args: Parameters<Operation<'visibleLength'>>) {
    return this.#call('visibleLength', args);
  }

  override visible(...args: Parameters<Operation<'visible'>>) {
    return this.#call('visible', args);
  }

  override outline(...args: Parameters<Operation<'outline'>>) {
    return this.#call('outline', args);
  }

  override timeline(...args: Parameters<Operation<'timeline'>>) {
    return this.#call('timeline', args);
  }

  override recordRanges(...args: Parameters<Operation<'recordRanges'>>) {
    return this.#call('recordRanges', args);
  }

  override ranges(...args: Parameters<Operation<'ranges'>>) {
    return this.#call('ranges', args);
  }

  override lastSeq(...args: Parameters<Operation<'lastSeq'>>) {
    return this.#call('lastSeq', args);
  }

  override agentMeta(...args: Parameters<Operation<'agentMeta'>>) {
    return this.#call('agentMeta', args);
  }

  override listAgents(...args: Parameters<Operation<'listAgents'>>) {
    return this.#call('listAgents', args);
  }

  override searchHistory(...args: Parameters<Operation<'searchHistory'>>) {
    return this.#call('searchHistory', args);
  }

  override readHistoryMessage(...args: Parameters<Operation<'readHistoryMessage'>>) {
    return this.#call('readHistoryMessage', args);
  }

  override findStoredPrefix(...args: Parameters<Operation<'findStoredPrefix'>>) {
    return this.#call('findStoredPrefix', args);
  }

  override async close(): Promise<void> {
    await this.#connection.close();
    await (await this.#local?.catch(() => undefined))?.close();
  }
}
