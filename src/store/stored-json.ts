/**
 * PostgreSQL's `jsonb` and `text` refuse `\u0000` and lone UTF-16 surrogates, which JavaScript
 * strings may hold. A value holding either is stored with every string (keys too) escaped and
 * its row flagged, so that it reads back exactly; every other value is stored as it is.
 */

/** Starts an escape in an escaped value's strings: it is followed by four hex digits of one UTF-16 code unit. */
const ESCAPE = '\u0001';

/** True when `text` holds a code unit PostgreSQL cannot store: NUL or a surrogate without its pair. */
export function hasUnstorableCharacters(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (unstorableAt(text, index)) return true;
  }
  return false;
}

/** True when the code unit at `index` is NUL or a lone surrogate. */
function unstorableAt(text: string, index: number): boolean {
  const unit = text.charCodeAt(index);
  if (unit === 0) return true;
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    return !(next >= 0xdc00 && next <= 0xdfff);
  }
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const previous = index === 0 ? Number.NaN : text.charCodeAt(index - 1);
    return !(previous >= 0xd800 && previous <= 0xdbff);
  }
  return false;
}

/** Escapes NUL, lone surrogates and the escape character itself as the escape and four hex digits. */
export function escapeStoredString(text: string): string {
  let escaped = '';
  for (let index = 0; index < text.length; index++) {
    const character = text.charAt(index);
    escaped += character === ESCAPE || unstorableAt(text, index) ? `${ESCAPE}${text.charCodeAt(index).toString(16).padStart(4, '0')}` : character;
  }
  return escaped;
}

/** Undoes {@link escapeStoredString}. */
export function unescapeStoredString(text: string): string {
  if (!text.includes(ESCAPE)) return text;
  let plain = '';
  for (let index = 0; index < text.length; index++) {
    const character = text.charAt(index);
    if (character === ESCAPE) {
      plain += String.fromCharCode(Number.parseInt(text.slice(index + 1, index + 5), 16));
      index += 4;
    } else {
      plain += character;
    }
  }
  return plain;
}

/** True when any string in `value` (keys included) holds a character PostgreSQL refuses. */
function needsEscaping(value: unknown): boolean {
  if (typeof value === 'string') return hasUnstorableCharacters(value);
  if (Array.isArray(value)) return value.some(needsEscaping);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, entry]) => hasUnstorableCharacters(key) || needsEscaping(entry));
  }
  return false;
}

/** `value` with every string, keys included, passed through `map`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((entry) => mapStrings(entry, map));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [map(key), mapStrings(entry, map)]));
  }
  return value;
}

/** A JSON value as stored: its text for a `jsonb` column, and whether its strings are escaped. */
export interface StoredJson {
  readonly text: string;
  readonly escaped: boolean;
}

/** Encodes a JSON value for a `jsonb` column; see the module's description. */
export function encodeStoredJson(value: unknown): StoredJson {
  if (!needsEscaping(value)) return { text: JSON.stringify(value), escaped: false };
  return { text: JSON.stringify(mapStrings(value, escapeStoredString)), escaped: true };
}

/** Decodes a value read from a `jsonb` column whose row says whether it is escaped. */
export function decodeStoredJson(value: unknown, escaped: boolean | null | undefined): unknown {
  return escaped === true ? mapStrings(value, unescapeStoredString) : value;
}

/**
 * A display string (a title) made storable in a `text` column: NUL and lone surrogates become
 * U+FFFD. Only for text derived from a message; the message itself is stored exactly.
 */
export function storableDisplayText(text: string): string {
  if (!hasUnstorableCharacters(text)) return text;
  let storable = '';
  for (let index = 0; index < text.length; index++) storable += unstorableAt(text, index) ? '\ufffd' : text.charAt(index);
  return storable;
}
