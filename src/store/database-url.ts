import { SlidingContextError } from '../errors/sliding-context-error.js';

/** A host name, an IPv4 or a bracketed IPv6 address. */
const HOST_PATTERN = /^(?:[A-Za-z0-9_~-]+(?:\.[A-Za-z0-9_~-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;

/** Where a PostgreSQL URL points, without its credentials: safe to print. */
export interface DatabaseTarget {
  /** `host:port`, the port 5432 when the URL gives none; `local socket` without a host. */
  readonly server: string;
  readonly database: string | undefined;
  readonly user: string | undefined;
  /** The password as pg reads it, so that a message can be checked never to hold it. */
  readonly password: string | undefined;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

function invalid(problem: string): SlidingContextError {
  return new SlidingContextError(
    'INVALID_DATABASE_URL',
    `The database URL ${problem}; expected postgres://user:password@host:port/database (the URL is not shown: it may hold a password).`,
  );
}

/** The port a URL-shaped text gives after its host when it is above 65535, which `URL` refuses outright. */
function outOfRangePort(url: string): string | undefined {
  const port = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]/?#]*\]|[^:/?#@]*):(\d+)(?:[/?#]|$)/.exec(url)?.[1];
  return port !== undefined && Number(port) > 65535 ? port.replace(/^0+(?=\d)/, '') : undefined;
}

/**
 * Checks a PostgreSQL URL before anything connects with it, and tells where it points without
 * its password. `pg` itself would read `not a url` as a path and try a host named `base`.
 * @throws SlidingContextError `INVALID_DATABASE_URL`, never echoing the URL's credentials
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const port = outOfRangePort(url);
    throw invalid(port === undefined ? 'is not a URL' : `has port ${port}, out of range: a port is 1 to 65535`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw invalid(`starts with "${parsed.protocol}//", not postgres:// or postgresql://`);
  }
  const host = parsed.hostname;
  if (host !== '') {
    // pg reads a percent-encoded path (`%2Fvar%2Frun%2Fpostgresql`) as a Unix socket directory.
    if (!decodes(host)) throw invalid('has a host that is not percent-encoded correctly');
    const decoded = decodeURIComponent(host);
    if (!decoded.startsWith('/') && !HOST_PATTERN.test(decoded)) throw invalid('has a host that is not a host name or address');
  }
  if (!decodes(parsed.username) || !decodes(parsed.password)) throw invalid('has a user or password that is not percent-encoded correctly (write % as %25)');
  const database = parsed.pathname.replace(/^\//, '');
  if (!decodes(database)) throw invalid('has a database name that is not percent-encoded correctly');
  return {
    server: host === '' ? 'local socket' : `${decodeURIComponent(host)}:${parsed.port === '' ? '5432' : parsed.port}`,
    database: database === '' ? undefined : decodeURIComponent(database),
    user: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
  };
}
