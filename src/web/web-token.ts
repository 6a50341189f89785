import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The cookie the page keeps the token in once it was opened with `?token=`. */
export const TOKEN_COOKIE = 'sliding_context_token';

/** Hosts only this machine reaches: the page needs no token there. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** True when `host` is reached from this machine only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.replace(/^\[|\]$/g, ''));
}

const sameText = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

function cookieToken(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/**
 * How a request stands with the token: `ok` (by the `Authorization: Bearer` or
 * `X-Sliding-Context-Token` header or the cookie), `from-query` (the page opened with
 * `?token=`: the answer sets the cookie), or `refused`.
 */
export function checkWebToken(request: IncomingMessage, url: URL, token: string): 'ok' | 'from-query' | 'refused' {
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const header = request.headers['x-sliding-context-token'];
  for (const given of [bearer, typeof header === 'string' ? header : undefined, cookieToken(request)]) {
    if (given !== undefined && sameText(given, token)) return 'ok';
  }
  const query = url.searchParams.get('token');
  return query !== null && sameText(query, token) ? 'from-query' : 'refused';
}

/** The cookie that keeps the token for the page's later requests: not readable by scripts. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
}
