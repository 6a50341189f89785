import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from './web-token.js';

/** The host name of a `Host` header (its port left out), lower-cased. */
function hostnameOf(host: string): string {
  const bracketed = /^\[[^\]]*\]/.exec(host);
  return (bracketed ? bracketed[0] : host.split(':')[0] ?? '').toLowerCase();
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * Why a request to a server on loopback without a token (the proxy, the web view) must be
 * refused, or undefined when it may be served: a `Host` that names another machine (a page whose name an attacker
 * pointed at 127.0.0.1, DNS rebinding), or an `Origin` of a web page elsewhere (a form or fetch
 * from a site the user has open). Clients that are programs send neither.
 */
export function foreignCallerOf(headers: IncomingHttpHeaders): string | undefined {
  const host = headers.host;
  if (host !== undefined && !isLoopbackHost(hostnameOf(host))) {
    return `This server answers on loopback only, and the request names the host "${host.slice(0, 100)}"; reach it at 127.0.0.1 or localhost, or start it with --token.`;
  }
  const origin = headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) {
    return `This server answers on loopback only, and the request comes from a web page of "${origin.slice(0, 100)}"; start it with --token to serve other origins.`;
  }
  return undefined;
}
