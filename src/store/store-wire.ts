/**
 * What goes over a store's socket: one JSON line per request or answer. Values keep what JSON
 * alone loses (dates, sets, infinite numbers, `undefined` in an array) as tagged objects; an object of the caller's
 * that happens to carry the tag key is wrapped, so nothing is read back as something else.
 */
import { SlidingContextError, type SlidingContextErrorCode } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';

const TAG = '$wire';

/** A request: the store operation and its arguments, numbered by the connection. */
export interface WireRequest {
  readonly id: number;
  readonly operation: string;
  readonly args: unknown;
}

/** An answer to the request with the same id: a result or the error the holder raised. */
export type WireAnswer =
  | { readonly id: number; readonly result: unknown }
  | { readonly id: number; readonly error: { readonly code: SlidingContextErrorCode; readonly message: string; readonly notPerformed?: true } }
  /** Sent by a holder that stops serving, after its last answer: a request not answered by then was not run. */
  | { readonly closing: true }
  /** Sent by the holder first on each connection: before it, nothing sent on it was read, let alone run. */
  | { readonly serving: true };

/** `value` as plain JSON data. */
export function encodeWire(value: unknown): unknown {
  if (value === undefined) return { [TAG]: 'undefined' };
  if (typeof value === 'number' && !Number.isFinite(value)) return { [TAG]: 'number', value: String(value) };
  if (value instanceof Date) return { [TAG]: 'date', value: value.toISOString() };
  if (value instanceof Set) return { [TAG]: 'set', value: [...value].map(encodeWire) };
  if (Array.isArray(value)) return value.map(encodeWire);
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, entry]) => entry !== undefined).map(([key, entry]) => [key, encodeWire(entry)]);
    const encoded = Object.fromEntries(entries) as Record<string, unknown>;
    return TAG in value ? { [TAG]: 'object', value: encoded } : encoded;
  }
  return value;
}

/** The value {@link encodeWire} was given. */
export function decodeWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeWire);
  if (!isRecord(value)) return value;
  const tag = value[TAG];
  if (tag === 'undefined') return undefined;
  if (tag === 'number') return Number(value.value);
  if (tag === 'date') return new Date(String(value.value));
  if (tag === 'set') return new Set(Array.isArray(value.value) ? value.value.map(decodeWire) : []);
  const fields = tag === 'object' && isRecord(value.value) ? value.value : value;
  return Object.fromEntries(Object.entries(fields).map(([key, entry]) => [key, decodeWire(entry)]));
}

/** The answer carrying `error`: a SlidingContextError as it is, anything else as `STORE_UNAVAILABLE`. */
export function errorAnswer(id: number, error: unknown): WireAnswer {
  if (error instanceof SlidingContextError) return { id, error: { code: error.code, message: error.message } };
  const reason = error instanceof Error ? error.message : String(error);
  return { id, error: { code: 'STORE_UNAVAILABLE', message: `The process holding the store failed: ${reason.split('\n')[0] ?? ''}` } };
}
