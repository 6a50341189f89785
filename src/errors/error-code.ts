import { isRecord } from '../message/is-record.js';

/** The code an error carries as a string, as Node's system errors (`ENOENT`) and PostgreSQL's (`23505`) do; undefined when it has none. */
export function errorCode(error: unknown): string | undefined {
  return isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
}
