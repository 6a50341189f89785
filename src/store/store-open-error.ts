import { accessSync, constants, type Stats, statSync } from 'node:fs';
import { errorCode } from '../errors/error-code.js';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import { parseDatabaseUrl } from './database-url.js';
import type { StoreLocation } from './open-database.js';

/** What a system error code means, in words a user acts on. */
const SYSTEM_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
};

/** What PostgreSQL's SQLSTATE codes mean when a store opens. */
const SERVER_REASONS: Readonly<Record<string, string>> = {
  '28P01': 'the password was refused',
  '28000': 'the server refused the user',
  '3D000': 'the database does not exist',
  '42501': 'the user lacks the privilege to create the store\'s tables',
  '53300': 'the server has too many connections',
  '57P03': 'the server is starting up or shutting down',
};

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why a server store did not open, never holding the URL's password. */
function describeServerFailure(error: unknown, databaseUrl: string): SlidingContextError {
  const target = parseDatabaseUrl(databaseUrl);
  const code = errorCode(error);
  const known = code === undefined ? undefined : (SYSTEM_REASONS[code] ?? SERVER_REASONS[code]);
  let reason = known === undefined ? errorText(error) : `${known} (${code ?? ''})`;
  if (target.password !== undefined && target.password.length >= 3) reason = reason.replaceAll(target.password, '***');
  const database = target.database === undefined ? '' : `, database ${target.database}`;
  const user = target.user === undefined ? '' : `, user ${target.user}`;
  return new SlidingContextError(
    'STORE_UNAVAILABLE',
    `Cannot open the PostgreSQL store at ${target.server}${database}${user}: ${reason}; check that the server is running and that --database-url or DATABASE_URL names it.`,
    { cause: error },
  );
}

/** What is wrong with a PGlite directory that did not open: it is a file, not writable, or the cause's own words. */
function describeDirectoryFailure(error: unknown, dataDir: string): SlidingContextError {
  const code = errorCode(error);
  let reason: string;
  const kind = statOrUndefined(dataDir);
  if (kind && !kind.isDirectory()) {
    reason = 'it is a file, not a directory';
  } else if (code === 'ENOTDIR') {
    reason = 'a folder on its path is a file';
  } else if (code !== undefined && SYSTEM_REASONS[code] !== undefined) {
    const path = isRecord(error) && typeof error.path === 'string' && error.path !== dataDir ? ` on ${error.path}` : '';
    reason = `${SYSTEM_REASONS[code]}${path} (${code})`;
  } else if (kind && !isWritable(dataDir)) {
    // PGlite reports a directory it cannot write only as a failure to initialize.
    reason = 'the directory is not writable';
  } else {
    reason = `${errorText(error)}; check that it holds a PGlite store`;
  }
  return new SlidingContextError(
    'STORE_UNAVAILABLE',
    `Cannot open the PGlite store ${dataDir}: ${reason}; pass --data-dir a directory you can write to.`,
    { cause: error },
  );
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    // Missing, or under a file (ENOTDIR): told from the error itself.
    return undefined;
  }
}

function isWritable(directory: string): boolean {
  try {
    accessSync(directory, constants.R_OK | constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The error to report when the store at `location` did not open: a `SlidingContextError` as
 * it is, anything from outside (a server, a directory, pg, PGlite) as `STORE_UNAVAILABLE`
 * saying where and why, with the original as `cause` and never the URL's password.
 */
export function describeStoreFailure(error: unknown, location: StoreLocation): unknown {
  if (isSlidingContextError(error)) return error;
  if ('databaseUrl' in location) return describeServerFailure(error, location.databaseUrl);
  if ('dataDir' in location) return describeDirectoryFailure(error, location.dataDir);
  return error;
}
