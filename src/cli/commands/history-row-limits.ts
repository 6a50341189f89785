import { SlidingContextError } from '../../errors/sliding-context-error.js';

/** Which rows `history` shows: the first `limit`, or the last `tail`, of the rows it lists. */
export interface HistoryRowLimits {
  readonly limit?: number | undefined;
  readonly tail?: number | undefined;
}

function positiveCount(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new SlidingContextError('INVALID_OPTION', `${flag}: "${value}" is not a number of rows; give a whole number of 1 or more.`);
  return Number(value);
}

/**
 * `--limit N` (the first N rows) and `--tail N` (the last N rows) from the flags.
 * @throws SlidingContextError `INVALID_OPTION` for a count that is not a positive whole number, or both flags at once.
 */
export function historyRowLimits(flags: { readonly limit?: string | undefined; readonly tail?: string | undefined }): HistoryRowLimits {
  const limit = positiveCount(flags.limit, '--limit');
  const tail = positiveCount(flags.tail, '--tail');
  if (limit !== undefined && tail !== undefined) throw new SlidingContextError('INVALID_OPTION', '--limit and --tail: give one of them (--limit N shows the first N rows, --tail N the last N).');
  return { limit, tail };
}

/** The rows the limits keep, and where they start among `rows`. */
export function sliceHistoryRows<Row>(rows: readonly Row[], limits: HistoryRowLimits): { rows: Row[]; offset: number } {
  if (limits.limit !== undefined) return { rows: rows.slice(0, limits.limit), offset: 0 };
  if (limits.tail !== undefined) {
    const offset = Math.max(0, rows.length - limits.tail);
    return { rows: rows.slice(offset), offset };
  }
  return { rows: [...rows], offset: 0 };
}
