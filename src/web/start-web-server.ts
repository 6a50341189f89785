import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { createWebHandler, type WebHandlerOptions } from './create-web-handler.js';
import { listenOn } from './listen-on.js';
import { foreignCallerOf } from './loopback-caller.js';
import { isLoopbackHost } from './web-token.js';

/** A running web view: its address, and how to stop it. */
export interface WebServer {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

/**
 * Serves the web view on its own at `host:port` (port 0 picks a free one). On any host but
 * 127.0.0.1, ::1 or localhost a token is required, and checked on every request; without one, a
 * request that names another host or comes from another site's page is refused (403).
 * @throws SlidingContextError `INVALID_OPTION` for another host without a token
 */
export async function startWebServer(options: WebHandlerOptions & { readonly port: number; readonly host?: string | undefined }): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && (options.token === undefined || options.token === '')) {
    throw new SlidingContextError('INVALID_OPTION', `--host ${host}: the web view is reachable from other machines there; give --token <secret> (or serve on 127.0.0.1).`);
  }
  const handler = createWebHandler(options);
  const server = createServer((request, response) => {
    // Without a token, loopback is the guard: another host's name (DNS rebinding) or another site's page is refused.
    const foreign = foreignCallerOf(request.headers, options.token);
    if (foreign !== undefined) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`403 ${foreign}\n`);
      return;
    }
    handler(request, response)
      .then((handled) => {
        if (!handled) response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 Not Found\n');
      })
      .catch(() => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('500 The store could not be read\n');
      });
  });
  await listenOn(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    host,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
