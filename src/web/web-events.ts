import type { ServerResponse } from 'node:http';
import type { HistoryStore } from '../store/history-store.js';

/** How often an idle event stream sends a comment, so that proxies keep it open, in milliseconds. */
const KEEP_ALIVE_MS = 15_000;

/**
 * The `/events` stream: each page that listens is sent `event: write` with the agent id as data
 * after every committed write to the store ({@link HistoryStore.onWrite}), never by polling.
 */
export class WebEvents {
  readonly #store: HistoryStore;
  readonly #clients = new Set<ServerResponse>();
  #stopListening: Promise<() => Promise<void>> | undefined;
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(store: HistoryStore) {
    this.#store = store;
  }

  /** Starts listening to the store (once); resolves when writes are heard. */
  async start(): Promise<void> {
    this.#stopListening ??= this.#store.onWrite((agentId) => {
      this.#send(`event: write\ndata: ${JSON.stringify({ agentId })}\n\n`);
    });
    await this.#stopListening;
  }

  /** Answers a request for `/events` with an open stream. */
  async open(response: ServerResponse): Promise<void> {
    await this.start();
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'connection': 'keep-alive' });
    response.write('retry: 1000\n: listening\n\n');
    this.#clients.add(response);
    response.on('close', () => this.#clients.delete(response));
    this.#keepAlive ??= setInterval(() => {
      this.#send(': keep-alive\n\n');
    }, KEEP_ALIVE_MS).unref();
  }

  /** Ends every stream and stops listening to the store. */
  async stop(): Promise<void> {
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
    for (const client of this.#clients) client.end();
    this.#clients.clear();
    const stopping = this.#stopListening;
    this.#stopListening = undefined;
    if (stopping) await (await stopping)();
  }

  #send(text: string): void {
    for (const client of this.#clients) client.write(text);
  }
}
