import { isPlainObject } from '../message/is-record.js';

/**
 * A request body as the bytes of `JSON.stringify(body)`, UTF-8, made without serializing again an
 * element that an earlier body already held. A conversation that reuses its converted messages
 * (`reuseConvertedMessages`) builds each body from the same frozen element objects as the body
 * before it; the bytes of each such element are kept while the element lives, and a body's bytes
 * are its own fields and the kept elements, joined. Only frozen elements are kept, and a frozen
 * element is taken as frozen all through (as `ConvertedMessages` and the proxy's parsed elements
 * freeze theirs): an object that can still change is serialized each time.
 */
export class RequestBodyBytes {
  readonly #kept = new WeakMap<object, Buffer>();

  /** `body` as `Buffer.from(JSON.stringify(body))` gives it. */
  of(body: unknown): Buffer {
    if (!isPlainObject(body) || hasToJson(body)) return Buffer.from(JSON.stringify(body));
    const pieces: Buffer[] = [];
    for (const [key, value] of Object.entries(body)) {
      const separator = pieces.length === 0 ? '{' : ',';
      if (Array.isArray(value) && !('toJSON' in value)) {
        pieces.push(Buffer.from(`${separator}${JSON.stringify(key)}:[`));
        for (const [index, element] of value.entries()) {
          if (index > 0) pieces.push(COMMA);
          pieces.push(this.#elementBytes(element, index));
        }
        pieces.push(CLOSING_BRACKET);
        continue;
      }
      // As the body's own member, so that a value with `toJSON` gets its key, and `undefined` leaves its key out.
      const member = JSON.stringify({ [key]: value }).slice(1, -1);
      if (member !== '') pieces.push(Buffer.from(`${separator}${member}`));
    }
    pieces.push(pieces.length === 0 ? EMPTY_OBJECT : CLOSING_BRACE);
    return Buffer.concat(pieces);
  }

  #elementBytes(element: unknown, index: number): Buffer {
    if (hasToJson(element)) {
      // Called with the element's index, as in the array; what it gives as `undefined` is `null` there.
      const member = JSON.stringify({ [index]: element }).slice(`{"${String(index)}":`.length, -1);
      return Buffer.from(member === '' ? 'null' : member);
    }
    const keep = typeof element === 'object' && element !== null && Object.isFrozen(element);
    const kept = keep ? this.#kept.get(element) : undefined;
    if (kept !== undefined) return kept;
    // As an array's element: `undefined` (and a function) is `null`.
    const bytes = Buffer.from(JSON.stringify([element]).slice(1, -1));
    if (keep) this.#kept.set(element, bytes);
    return bytes;
  }
}

const COMMA = Buffer.from(',');
const CLOSING_BRACKET = Buffer.from(']');
const CLOSING_BRACE = Buffer.from('}');
const EMPTY_OBJECT = Buffer.from('{}');

function hasToJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
