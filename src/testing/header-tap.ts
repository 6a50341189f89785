/**
 * A loopback hop in front of a server, for a client whose answers' headers cannot be seen: every
 * request goes to the server as it came, every answer back as it came, and each answer's status
 * and headers are kept, in order.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer that went back through the tap. */
export interface TappedAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** As Node gives them (lower-case names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Starts the tap on 127.0.0.1 at a free port, in front of `targetUrl` (an `http://` origin). Call `close()` when done. */
export async function startHeaderTap(targetUrl: string) {
  const target = new URL(targetUrl);
  const answers: TappedAnswer[] = [];
  const server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        answers.push({ method: incoming.method ?? 'GET', path: incoming.url ?? '/', status: answer.statusCode ?? 0, headers: answer.headers });
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    close: () => new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    }),
  };
}
