import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HistoryStore } from '../store/history-store.js';
import type { PlanOptionsOf } from '../views/read-agent-history.js';
import { HistoryCache } from './history-cache.js';
import { serveWebApi } from './web-api.js';
import { serveWebAsset, webAssetsDir } from './web-assets.js';
import { WebEvents } from './web-events.js';
import { checkWebToken, tokenCookie } from './web-token.js';

/** What the web view is served from. */
export interface WebHandlerOptions {
  readonly store: HistoryStore;
  /** When given, every request must carry it (`?token=` for the page, then its cookie; a header for the API). */
  readonly token?: string | undefined;
  /** The built page's folder; the package's dist/web/app by default. */
  readonly assetsDir?: string | undefined;
  /** How an agent's history is planned (the model and budget it is stored with, by default). */
  readonly planOptions?: PlanOptionsOf | undefined;
}

/** A request handler that answers the paths the web view owns and returns false for others. */
export type WebHandler = ((request: IncomingMessage, response: ServerResponse) => Promise<boolean>) & {
  /** Ends the open event streams and stops listening to the store. */
  close(): Promise<void>;
};

const OWNED = /^\/($|index\.html$|assets\/|api\/|events$)/;

/**
 * The read-only web view of a store, to mount in a server: the page at `/` and its assets, the
 * JSON under `/api/`, and `/events`, a server-sent event per committed write. With a token, a
 * request without it is answered 401 and nothing else.
 */
export function createWebHandler(options: WebHandlerOptions): WebHandler {
  const events = new WebEvents(options.store);
  const histories = new HistoryCache(options.store, options.planOptions);
  const assetsDir = options.assetsDir ?? webAssetsDir();
  const handler = async (request: IncomingMessage, response: ServerResponse): Promise<boolean> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (!OWNED.test(url.pathname)) return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return true;
    }
    if (options.token !== undefined) {
      const standing = checkWebToken(request, url, options.token);
      if (standing === 'refused') {
        response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end('401 Unauthorized\n');
        return true;
      }
      if (standing === 'from-query') response.setHeader('set-cookie', tokenCookie(options.token));
    }
    if (url.pathname === '/events') {
      await events.open(response);
      return true;
    }
    return (await serveWebApi(options.store, url, response, histories)) || (await serveWebAsset(url.pathname, response, assetsDir));
  };
  return Object.assign(handler, {
    close: async () => {
      await Promise.all([events.stop(), histories.close()]);
    },
  });
}
