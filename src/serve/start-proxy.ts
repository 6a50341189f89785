import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { RegistryStore } from '../conversation/conversation-registry.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { answerError, answerJson } from './answer-client.js';
import { TOKEN_HEADER } from './forwarded-headers.js';
import { listenOn } from '../web/listen-on.js';
import { foreignCallerOf } from '../web/loopback-caller.js';
import { passThrough } from './pass-through.js';
import type { ProxyContext } from './proxy-context.js';
import { ProxyConversations, type ProxyWindowSettings } from './proxy-conversations.js';
import { apiOfRequest, isWebViewPath, upstreamPath, windowedEndpoint } from './proxy-endpoints.js';
import { providerErrorBody } from './provider-error-body.js';
import { DEFAULT_BODY_LIMIT_BYTES } from './read-request-body.js';
import { EarlierElements } from './earlier-elements.js';
import { RequestBodyBytes } from './request-body-bytes.js';
import { TailConversion } from './tail-conversion.js';
import { handleWindowedRequest } from './windowed-request.js';

/** The upstreams the proxy forwards to by default. */
export const DEFAULT_UPSTREAMS = { openai: 'https://api.openai.com', anthropic: 'https://api.anthropic.com' } as const;

/** Options of {@link startProxy}. */
export interface ProxyOptions extends ProxyWindowSettings {
  readonly store: RegistryStore;
  /** Default 127.0.0.1; any other address requires `token`. */
  readonly host?: string | undefined;
  /** Default 8787; 0 picks a free port. */
  readonly port?: number | undefined;
  readonly upstreamOpenAi?: string | undefined;
  readonly upstreamAnthropic?: string | undefined;
  /** Every request must carry it in `x-sliding-context-token`; required off loopback. */
  readonly token?: string | undefined;
  /** Default 32 MiB. */
  readonly bodyLimitBytes?: number | undefined;
  /**
   * Paths served before the proxy's own, such as the web view (`/`, `/api/`, `/events`); it
   * answers false for the rest. Without it, those paths are answered 404, never forwarded.
   */
  readonly web?: ((request: IncomingMessage, response: ServerResponse) => Promise<boolean>) | undefined;
  /** A request the proxy could not serve, for the operator's log (it never holds a key or a body). */
  readonly onProblem?: ((problem: string) => void) | undefined;
}

/** A running proxy. */
export interface RunningProxy {
  /** `http://127.0.0.1:8787`, the base URL to point clients at (add `/v1` for OpenAI's SDK). */
  readonly url: string;
  /** Waits until the answers the clients have received are stored (an answer is sent before it is stored). */
  settled(): Promise<void>;
  /** Stops taking requests, waits for those in flight and for their answers to be stored. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** An upstream base URL as requests are appended to it: no trailing `/` nor `/v1`. */
export function upstreamBase(url: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SlidingContextError('INVALID_OPTION', `${option}: "${url}" is not a URL; give one like https://api.openai.com.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new SlidingContextError('INVALID_OPTION', `${option}: expected an http or https URL.`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

function tokenMatches(given: string | string[] | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const [a, b] = [Buffer.from(given), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Starts the proxy: OpenAI's `/v1/chat/completions` and `/v1/responses` and Anthropic's
 * `/v1/messages` windowed over the store (POST only; another method is a 405), the web view's
 * paths never forwarded, everything else passed through to the upstream.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && (options.token === undefined || options.token === '')) {
    throw new SlidingContextError('INVALID_OPTION', `serve: binding ${host}, off loopback, requires --token; clients then send it in the ${TOKEN_HEADER} header.`);
  }
  const context: ProxyContext = {
    conversations: new ProxyConversations(options.store, options),
    conversions: new TailConversion(),
    earlierElements: new EarlierElements(),
    bodyBytes: new RequestBodyBytes(),
    upstreams: {
      openai: upstreamBase(options.upstreamOpenAi ?? DEFAULT_UPSTREAMS.openai, '--upstream-openai'),
      anthropic: upstreamBase(options.upstreamAnthropic ?? DEFAULT_UPSTREAMS.anthropic, '--upstream-anthropic'),
    },
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    onProblem: options.onProblem ?? (() => undefined),
  };
  const inFlight = new Set<Promise<void>>();
  const guarded = options.token !== undefined && options.token !== '';
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = upstreamPath(request.url ?? '/');
    // Without a token, loopback is the guard: a request that names another host or comes from another site's page is refused, web view included.
    const foreign = foreignCallerOf(request.headers, options.token);
    if (foreign !== undefined) {
      request.resume();
      answerError(response, apiOfRequest(target.path, request.headers), new SlidingContextError('FORBIDDEN', foreign));
      return;
    }
    // The web view checks its own token (a header, or the page's cookie).
    if (options.web && (await options.web(request, response))) return;
    // A browser's request for the page goes nowhere else, whether or not this process serves it.
    if (isWebViewPath(request.url ?? '/')) {
      request.resume();
      const where = options.web ? 'The web view has no such page.' : 'The web view is not served here: it is served by the process that holds the store, or it is off.';
      answerJson(response, 404, providerErrorBody(apiOfRequest(target.path, request.headers), 404, `sliding-context: ${where}`, 'NOT_FOUND'));
      return;
    }
    if (guarded && !tokenMatches(request.headers[TOKEN_HEADER], options.token ?? '')) {
      request.resume();
      answerError(response, apiOfRequest(target.path, request.headers), new SlidingContextError('UNAUTHORIZED', `The proxy requires its token in the ${TOKEN_HEADER} header.`));
      return;
    }
    const endpoint = windowedEndpoint(target.path);
    const method = request.method ?? 'GET';
    if (endpoint && method !== 'POST') {
      request.resume();
      answerJson(response, 405, providerErrorBody(endpoint.api, 405, `sliding-context: ${target.path} takes POST only; got ${method}.`, 'METHOD_NOT_ALLOWED'), { allow: 'POST' });
      return;
    }
    if (endpoint) await handleWindowedRequest(request, response, endpoint, target, context);
    else await passThrough(request, response, target, context);
  };
  const server = createServer((request, response) => {
    const work = handle(request, response).catch((error: unknown) => {
      context.onProblem(`request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  await listenOn(server, options.port ?? 8787, host);
  const { address, port } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${port}`,
    settled: () => context.conversations.settled(),
    async close() {
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      server.closeIdleConnections();
      await Promise.all([...inFlight]);
      server.closeAllConnections();
      await closed;
      await context.conversations.settled();
    },
  };
}
