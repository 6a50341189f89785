import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from './web-token.js';

/** True when `url` (an origin, or `http://` and a `Host` header) is an http(s) address on loopback. */
function isLoopbackUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && isLoopbackHost(parsed.hostname);
  } catch {
    return false;
  }
}

/**
 * Why a request to a server on loopback without a token (the proxy, the web view) must be
 * refused, or undefined when it may be served (always, with a token: the token is the guard): a
 * `Host` that names another machine (a page whose name an attacker pointed at 127.0.0.1, DNS
 * rebinding), or an `Origin` of a web page elsewhere (a form or fetch from a site the user has
 * open). Clients that are programs send neither.
 */
export function foreignCallerOf(headers: IncomingHttpHeaders, token: string | undefined): string | undefined {
  if (token !== undefined && token !== '') return undefined;
  const { host, origin } = headers;
  if (host !== undefined && !isLoopbackUrl(`http://${host}`)) {
    return `This server answers on loopback only, and the request names the host "${host.slice(0, 100)}"; reach it at 127.0.0.1 or localhost, or start it with --token.`;
  }
  if (origin !== undefined && !isLoopbackUrl(origin)) {
    return `This server answers on loopback only, and the request comes from a web page of "${origin.slice(0, 100)}"; start it with --token to serve other origins.`;
  }
  return undefined;
}
