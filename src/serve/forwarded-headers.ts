import type { IncomingHttpHeaders } from 'node:http';

/** The header that pins a request to an agent (its name, or its id). */
export const AGENT_HEADER = 'x-sliding-context-agent';
/** The header that carries the proxy's own token (`--token`), apart from the provider key in `authorization` / `x-api-key`. */
export const TOKEN_HEADER = 'x-sliding-context-token';

/** Headers of one hop, and the proxy's own, that never go upstream. */
const NOT_FORWARDED = new Set([
  'host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection',
  'content-length', 'accept-encoding', AGENT_HEADER, TOKEN_HEADER,
]);

/**
 * The client's headers as the upstream gets them: its API key (`authorization`, `x-api-key`) and
 * every provider header (`anthropic-version`, `anthropic-beta`, `openai-organization`, …) as they
 * came; hop headers and the proxy's own left out. Bodies come back unencoded, so that the proxy can read them.
 */
export function forwardedHeaders(headers: IncomingHttpHeaders): Headers {
  const forwarded = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    for (const each of Array.isArray(value) ? value : [value]) forwarded.append(name, each);
  }
  forwarded.set('accept-encoding', 'identity');
  return forwarded;
}

/** Upstream response headers that describe the bytes of one hop, and are not passed back. */
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

/** The upstream's response headers as the client gets them (its request ids, rate limits, …). */
export function returnedHeaders(headers: Headers): Record<string, string> {
  const returned: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!NOT_RETURNED.has(name)) returned[name] = value;
  });
  return returned;
}
