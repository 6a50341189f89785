/**
 * A proxy that only forwards: the floor of the proxy benchmark's clock on this machine. It reads
 * a request's body, parses it and serializes it again (as any proxy that reads the request does),
 * sends it to the upstream, and answers with the upstream's answer and the same
 * `x-sliding-context-overhead-ms` clock as `serve`: from the request's headers to the answer's
 * headers, the upstream's time excluded. No store, no window. Run as a process of its own:
 * `node --import tsx bench/forwarding-proxy.ts <upstream URL>`; it prints `listening on <URL>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstream = process.argv[2];
if (upstream === undefined) throw new RangeError('usage: forwarding-proxy.ts <upstream URL>');

const server = createServer((request, response) => {
  const started = performance.now();
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    void (async () => {
      const body = Buffer.from(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      const sentAt = performance.now();
      const answer = await fetch(`${upstream}${request.url ?? ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'authorization': request.headers.authorization ?? '' },
        body,
      });
      const text = await answer.text();
      const upstreamMs = performance.now() - sentAt;
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'x-sliding-context-agent': 'forwarded',
        'x-sliding-context-overhead-ms': (performance.now() - started - upstreamMs).toFixed(1),
      });
      response.end(text);
    })().catch((error: unknown) => {
      response.writeHead(502).end(String(error));
    });
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${String(port)}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
