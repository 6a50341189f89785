import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from './web-token.js';

/** `url` parsed when it is an http(s) address on loopback, else undefined. */
function loopbackUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && isLoopbackHost(parsed.hostname) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when `origin` is this server's own: http (it serves no TLS), a loopback name (127.0.0.1,
 * ::1 and localhost alike) and the port of the request's `Host`. Another port is another site,
 * another local dev server's page, whatever its name.
 */
function isOwnOrigin(origin: string, requestHost: URL | undefined): boolean {
  const page = loopbackUrl(origin);
  return requestHost !== undefined && page !== undefined && page.protocol === 'http:' && page.port === requestHost.port;
}

/**
 * Why a request to a server on loopback without a token (the proxy, the web view) must be
 * refused, or undefined when it may be served (always, with a token: the token is the guard): a
 * `Host` that names another machine (a page whose name an attacker pointed at 127.0.0.1, DNS
 * rebinding), or an `Origin` other than the server's own (a form or fetch from a site the user
 * has open, a page of another local port, `null`). Clients that are programs send no `Origin`.
 */
export function foreignCallerOf(headers: IncomingHttpHeaders, token: string | undefined): string | undefined {
  if (token !== undefined && token !== '') return undefined;
  const { host, origin } = headers;
  const requestHost = host === undefined ? undefined : loopbackUrl(`http://${host}`);
  if (host !== undefined && requestHost === undefined) {
    return `This server answers on loopback only, and the request names the host "${host.slice(0, 100)}"; reach it at 127.0.0.1 or localhost, or start it with --token.`;
  }
  if (origin !== undefined && !isOwnOrigin(origin, requestHost)) {
    return `This server answers on loopback only, and the request comes from a web page of "${origin.slice(0, 100)}", not one it served; start it with --token to serve other origins.`;
  }
  return undefined;
}
