import type { IncomingHttpHeaders } from 'node:http';
import { TOKEN_COOKIE } from '../web/web-token.js';

/** The header that pins a request to an agent (its name, or its id). */
export const AGENT_HEADER = 'x-sliding-context-agent';
/** The header that carries the proxy's own token (`--token`), apart from the provider key in `authorization` / `x-api-key`. */
export const TOKEN_HEADER = 'x-sliding-context-token';

/**
 * Headers of one hop (RFC 9110 §7.6.1: `connection` and the headers it names, `keep-alive`,
 * `proxy-*`, `te`, `trailer`, `transfer-encoding`, `upgrade`; and `expect`, which fetch refuses),
 * those fetch sets itself (`host`, `content-length`), and the proxy's own, that never go upstream.
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-7.6.1
 */
const NOT_FORWARDED = new Set([
  'host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect',
  'content-length', 'accept-encoding', AGENT_HEADER, TOKEN_HEADER,
]);

/** The `cookie` header less the web view's token cookie, or undefined when no other cookie is left. */
function cookiesWithoutToken(cookie: string): string | undefined {
  const kept = cookie.split(';').filter((part) => part.split('=')[0]?.trim() !== TOKEN_COOKIE);
  const joined = kept.join(';').trim();
  return joined === '' ? undefined : joined;
}

/**
 * The client's headers as the upstream gets them: its API key (`authorization`, `x-api-key`) and
 * every provider header (`anthropic-version`, `anthropic-beta`, `openai-organization`, …) as they
 * came; hop headers, the proxy's own and the web view's token cookie left out. Bodies come back
 * unencoded, so that the proxy can read them.
 */
export function forwardedHeaders(headers: IncomingHttpHeaders): Headers {
  const named = (headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase());
  const forwarded = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith('proxy-') || named.includes(name)) continue;
    for (const each of Array.isArray(value) ? value : [value]) {
      const kept = name === 'cookie' ? cookiesWithoutToken(each) : each;
      if (kept !== undefined) forwarded.append(name, kept);
    }
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
