import type { WireFormat } from '../providers/wire-format-names.js';

/** The two APIs the proxy speaks: each has its upstream and its own error shape. */
export type ProxyApi = 'openai' | 'anthropic';

/** An endpoint whose requests are windowed: its body's format and the API it belongs to. */
export interface WindowedEndpoint {
  readonly format: Extract<WireFormat, 'openai-chat' | 'openai-responses' | 'anthropic'>;
  readonly api: ProxyApi;
}

const WINDOWED: Readonly<Record<string, WindowedEndpoint>> = {
  '/v1/chat/completions': { format: 'openai-chat', api: 'openai' },
  '/v1/responses': { format: 'openai-responses', api: 'openai' },
  '/v1/messages': { format: 'anthropic', api: 'anthropic' },
};

/**
 * A request's path as the upstream gets it, always under `/v1` (an OpenAI client pointed at the
 * proxy without `/v1` in its base URL still works), and its query apart.
 */
export function upstreamPath(url: string): { readonly path: string; readonly query: string } {
  const at = url.indexOf('?');
  const raw = at < 0 ? url : url.slice(0, at);
  const query = at < 0 ? '' : url.slice(at);
  const path = raw === '/v1' || raw.startsWith('/v1/') ? raw : `/v1${raw.startsWith('/') ? '' : '/'}${raw}`;
  return { path: path.replace(/\/+$/, '') || '/v1', query };
}

/** The windowed endpoint `path` is (it takes POST only), or undefined for one passed through. */
export function windowedEndpoint(path: string): WindowedEndpoint | undefined {
  return WINDOWED[path];
}

/**
 * The web view's paths (`/`, `/index.html`, `/assets/…`, `/api/…`, `/events`) and the icon a
 * browser asks for beside them: a browser's requests, never the upstream's.
 */
export function isWebViewPath(url: string): boolean {
  return /^\/($|[?#]|index\.html|favicon\.ico|assets\/|api\/|events($|[/?#]))/.test(url);
}

/**
 * The API a passed-through request belongs to: Anthropic's when the client sends its headers
 * (`anthropic-version`, `x-api-key`) or asks an Anthropic-only path, else OpenAI's.
 */
export function apiOfRequest(path: string, headers: Readonly<Record<string, string | string[] | undefined>>): ProxyApi {
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined) return 'anthropic';
  return 'openai';
}
