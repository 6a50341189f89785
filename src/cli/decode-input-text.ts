import { isUtf8 } from 'node:buffer';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { looksBinary } from '../message/parse-json-text.js';

/** What the CLI reads from a file or stdin: its bytes, or text already decoded. */
export type InputContent = string | Uint8Array;

/** The byte order mark some editors put at the start of a UTF-8 file; JSON does not allow it. */
const BYTE_ORDER_MARK = '\uFEFF';

/**
 * The offset of the first byte of `bytes` that is not UTF-8, given `text` decoded from them: the
 * first replacement character in `text` that the bytes do not spell themselves.
 */
export function firstInvalidUtf8Byte(bytes: Uint8Array, text: string): number {
  let offset = 0;
  let from = 0;
  for (let index = text.indexOf('\uFFFD'); index !== -1; index = text.indexOf('\uFFFD', index + 1)) {
    offset += Buffer.byteLength(text.slice(from, index));
    from = index;
    if (bytes[offset] !== 0xef || bytes[offset + 1] !== 0xbf || bytes[offset + 2] !== 0xbd) return offset;
  }
  return -1;
}

/**
 * The text of what was read from `source` (a file name or `stdin`), without a leading byte order
 * mark. Bytes that are not UTF-8 are refused, not read with replacement characters; binary bytes
 * are decoded as they are, for the parser to name as binary with what it expected instead.
 * @throws SlidingContextError `INPUT_NOT_TEXT` naming the offset of the first byte that is not UTF-8, or saying it is UTF-16
 */
export function decodeInputText(content: InputContent, source: string): string {
  if (typeof content !== 'string' && content.length >= 2 && ((content[0] === 0xff && content[1] === 0xfe) || (content[0] === 0xfe && content[1] === 0xff))) {
    throw new SlidingContextError('INPUT_NOT_TEXT', `${source} is UTF-16 (it starts with a UTF-16 byte order mark); JSON must be UTF-8, so save it as UTF-8.`);
  }
  const text = typeof content === 'string' ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8');
  if (typeof content !== 'string' && !isUtf8(content) && !looksBinary(text)) {
    throw new SlidingContextError('INPUT_NOT_TEXT', `${source} is not valid UTF-8 (byte ${firstInvalidUtf8Byte(content, text)}); JSON must be UTF-8, so save it as UTF-8.`);
  }
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
}
