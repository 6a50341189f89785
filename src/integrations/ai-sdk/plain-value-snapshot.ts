/**
 * Snapshots of plain data (what a framework's prompt is made of) and their comparison, for a cache
 * of conversions keyed by the input: a caller that later changes its own objects in place changes
 * nothing in a snapshot, and a snapshot compares equal to a value only when converting either one
 * gives the same result.
 */

import { setDataKey } from '../../message/data-key.js';
import { isPlainObject } from '../../message/is-record.js';

/** A snapshot of a value no snapshot can be taken of (a class instance): equal to nothing. */
const OPAQUE = Symbol('opaque');

/**
 * A frozen copy of plain data: objects and arrays copied, bytes copied, a URL or a Date kept as
 * a copy; strings are shared (they cannot change). Anything else becomes a marker equal to nothing.
 */
export function plainSnapshot(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Object.freeze(value.map(plainSnapshot));
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (value instanceof URL) return new URL(value.href);
  if (value instanceof Date) return new Date(value.getTime());
  if (!isPlainObject(value)) return OPAQUE;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) setDataKey(copy, key, plainSnapshot(inner));
  return Object.freeze(copy);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * Whether `value` is what `snapshot` was taken of, unchanged: same keys (in any order), equal
 * leaves. Identical objects and strings compare at once, so a prompt rebuilt around the same
 * strings compares in time proportional to its number of objects, not its text. Namespaces of a
 * `providerOptions` object named in `ignoredOptions` are left out of the comparison: a framework's
 * own bookkeeping (Mastra stamps every part with `providerOptions.mastra.createdAt` each time it
 * takes the history in again), which no provider reads.
 */
export function sameAsSnapshot(snapshot: unknown, value: unknown, ignoredOptions?: ReadonlySet<string>): boolean {
  return sameValue(snapshot, value, ignoredOptions, false);
}

function sameValue(snapshot: unknown, value: unknown, ignoredOptions: ReadonlySet<string> | undefined, inOptions: boolean): boolean {
  if (snapshot === value) return snapshot !== OPAQUE;
  if (snapshot === null || value === null || typeof snapshot !== 'object' || typeof value !== 'object') return false;
  if (Array.isArray(snapshot)) {
    if (!Array.isArray(value) || snapshot.length !== value.length) return false;
    for (let index = 0; index < snapshot.length; index++) if (!sameValue(snapshot[index], value[index], ignoredOptions, false)) return false;
    return true;
  }
  // Plain objects first: a prompt is made of them, and this path is taken for each of its parts.
  if (!isPlainObject(snapshot)) {
    if (snapshot instanceof Uint8Array) return value instanceof Uint8Array && sameBytes(snapshot, value);
    if (snapshot instanceof URL) return value instanceof URL && snapshot.href === value.href;
    return snapshot instanceof Date && value instanceof Date && snapshot.getTime() === value.getTime();
  }
  if (!isPlainObject(value)) return false;
  const ignored = inOptions ? ignoredOptions : undefined;
  // Counted in two loops over the keys, not compared as key lists: no array is made for each part.
  let keys = 0;
  for (const key in snapshot) {
    if (ignored?.has(key) === true) continue;
    if (!Object.hasOwn(value, key) || !sameValue(snapshot[key], value[key], ignoredOptions, key === 'providerOptions')) return false;
    keys++;
  }
  let valueKeys = 0;
  for (const key in value) if (ignored?.has(key) !== true && Object.hasOwn(value, key)) valueKeys++;
  return keys === valueKeys;
}
