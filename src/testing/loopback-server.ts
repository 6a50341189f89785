import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the loopback server received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  /** The request's headers, as Node gives them (lower-case names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * An answer: a status and a JSON body, or a recorded server-sent event stream sent as it is; with
 * `hold`, the stream is left open after it, as a server that stalls mid-stream leaves it; with
 * `cut`, the connection is cut after it, as a server that dies mid-stream cuts it.
 */
export type LoopbackAnswer = { status: number; body: unknown } | { status: number; sse: string; hold?: boolean; cut?: boolean };

/** How the server answers, chosen per request. */
export type LoopbackHandler = (request: ReceivedRequest) => LoopbackAnswer | Promise<LoopbackAnswer>;

/**
 * A real HTTP server on 127.0.0.1 that answers with recorded payloads (JSON or event streams), for testing provider
 * clients end to end. Call `close()` when done.
 */
export async function startLoopbackServer(handler: LoopbackHandler) {
  const received: ReceivedRequest[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: ReceivedRequest = { method: request.method ?? 'GET', path: request.url ?? '/', body: text ? (JSON.parse(text) as unknown) : undefined, headers: request.headers };
      received.push(entry);
      void Promise.resolve(handler(entry)).then((answer) => {
        if ('sse' in answer) {
          response.writeHead(answer.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          if (answer.cut === true) response.write(answer.sse, () => response.destroy());
          else if (answer.hold === true) response.write(answer.sse);
          else response.end(answer.sse);
          return;
        }
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      // Streams left open (`hold`) would keep the server from closing.
      server.closeAllConnections();
    }),
  };
}
