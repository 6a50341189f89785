import { setDataKey } from '../message/data-key.js';
import { isPlainObject } from '../message/is-record.js';
import type { ModelMessage } from '../message/message.js';

/** Keys the prefix rule ignores at every level: a client may drop or add them on the way back. */
const IGNORED_KEYS = new Set(['providerOptions', 'id']);

/** A value with `toJSON` (a `Date`, a `URL`) compares as what it serializes to. */
function serialized(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON(): unknown }).toJSON();
  }
  return value;
}

function counted(value: object): number {
  let count = 0;
  for (const [key, inner] of Object.entries(value)) if (!IGNORED_KEYS.has(key) && inner !== undefined) count++;
  return count;
}

function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.byteLength !== b.byteLength) return false;
  const left = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const right = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let index = 0; index < left.length; index++) if (left[index] !== right[index]) return false;
  return true;
}

function sameValue(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  const a = serialized(left);
  const b = serialized(right);
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameValue(a[index], b[index])) return false;
    return true;
  }
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) return sameBytes(a, b);
  const record = b as Record<string, unknown>;
  let count = 0;
  for (const [key, inner] of Object.entries(a)) {
    if (IGNORED_KEYS.has(key) || inner === undefined) continue;
    if (!Object.hasOwn(record, key) || !sameValue(inner, record[key])) return false;
    count++;
  }
  return count === counted(b);
}

/**
 * Whether two messages are the same for the prefix rule: equal role and content, provider options,
 * ids and `undefined` fields ignored at every level, key order ignored. It agrees with
 * `messageFingerprint` equality on JSON values, without building either string: identical objects
 * compare at once, and equal strings by their characters.
 */
export function sameMessageContent(a: ModelMessage, b: ModelMessage): boolean {
  return sameValue(a, b);
}

/** How many leading messages two lists share, compared by {@link sameMessageContent}. */
export function sharedMessagePrefixLength(known: readonly ModelMessage[], sent: readonly ModelMessage[]): number {
  let length = 0;
  while (length < known.length && length < sent.length && sameMessageContent(known[length] as ModelMessage, sent[length] as ModelMessage)) length++;
  return length;
}

function copiedValue(value: unknown): unknown {
  const plain = serialized(value);
  if (plain === null || typeof plain !== 'object') return plain;
  if (Array.isArray(plain)) return plain.map(copiedValue);
  if (ArrayBuffer.isView(plain)) return new Uint8Array(plain.buffer.slice(plain.byteOffset, plain.byteOffset + plain.byteLength));
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(plain)) if (!IGNORED_KEYS.has(key) && inner !== undefined) setDataKey(copy, key, copiedValue(inner));
  return copy;
}

/** Messages {@link frozenMessageCopy} made: nothing can change them, so they are kept as they are. */
const frozenCopies = new WeakSet<object>();

/**
 * A copy of a message that compares as it does, kept by whoever remembers what a conversation
 * holds: a caller that later changes its own message object in place changes nothing here. A
 * message {@link frozenMessageCopy} made is its own copy: the same object then compares at once.
 */
export function copyMessageContent(message: ModelMessage): ModelMessage {
  if (frozenCopies.has(message)) return message;
  return Object.freeze(copiedValue(message)) as ModelMessage;
}

/** Whether `message` is one {@link frozenMessageCopy} made, which nothing can change. */
export function isFrozenMessageCopy(message: ModelMessage): boolean {
  return frozenCopies.has(message);
}

/**
 * A deep copy of a message, every object and array of it frozen, provider options and ids kept:
 * held and sent again by an integration that converts a prompt once, it is remembered as it is
 * ({@link copyMessageContent}), so the next call that sends it again compares it at once. A
 * message holding anything but plain objects, arrays and primitives (bytes, a class instance) is
 * copied as far as it can be and not taken for unchanging.
 */
export function frozenMessageCopy(message: ModelMessage): ModelMessage {
  const found = { plain: true };
  const frozen = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return Object.freeze(value.map(frozen));
    if (!isPlainObject(value)) {
      found.plain = false;
      return value;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) setDataKey(copy, key, frozen(inner));
    return Object.freeze(copy);
  };
  const copy = frozen(message) as ModelMessage;
  if (found.plain) frozenCopies.add(copy);
  return copy;
}
