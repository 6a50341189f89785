/**
 * The SQL log: with `SLIDING_CONTEXT_SQL_LOG=<file>` set, every statement the store issues is
 * appended to the file as one JSON line, `{"sql": "...", "parameters": ["<digest>", ...]}`, so
 * that what a deployment runs can be checked (for instance, that each statement routes to one
 * Citus shard; on PGlite, `begin`, `commit` and `rollback`, sent by the simple protocol, are not
 * logged). A statement sent with its values written in as literals (an append from the agent's
 * tip, see direct-transaction.ts) is logged as Kysely compiled it, its values as parameters.
 * The parameters hold the conversation, so only a keyed digest of each is
 * written (the key is new each time the store opens): enough to tell which parameters of one
 * statement are equal (the `root_id` of two rows of one insert), nothing of what they say. Unset, Kysely is given no logger and runs exactly as without this.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { LogEvent } from 'kysely';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** The environment variable naming the SQL log file. */
export const SQL_LOG_VARIABLE = 'SLIDING_CONTEXT_SQL_LOG';

/**
 * Kysely's `log` option for the SQL log named in `env`, or undefined when none is.
 * @throws SlidingContextError `OUTPUT_UNWRITABLE` when the file cannot be appended to
 */
export function sqlLogFromEnvironment(env: NodeJS.ProcessEnv = process.env): ((event: LogEvent) => void) | undefined {
  const file = env[SQL_LOG_VARIABLE];
  if (file === undefined || file === '') return undefined;
  try {
    appendFileSync(file, '', { mode: 0o600 });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('OUTPUT_UNWRITABLE', `${SQL_LOG_VARIABLE} names ${file}, which cannot be appended to: ${reason}.`, { cause: error });
  }
  const key = randomBytes(32);
  const digest = (value: unknown) => parameterDigest(key, value);
  return (event) => {
    try {
      // A statement that failed was issued all the same: both are logged.
      appendFileSync(file, `${JSON.stringify({ sql: event.query.sql, parameters: event.query.parameters.map(digest) })}\n`);
    } catch {
      // The statement has run: a log that cannot be written (a full disk) must not fail it.
    }
  };
}

/** A short keyed digest of a statement parameter: under one key, equal values give equal digests. */
function parameterDigest(key: Buffer, value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? `s${value}` : `j${(JSON.stringify(value) as string | undefined) ?? 'undefined'}`;
  } catch {
    text = `o${String(value)}`;
  }
  return createHmac('sha256', key).update(text).digest('base64url').slice(0, 16);
}
