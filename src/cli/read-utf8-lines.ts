import { isUtf8 } from 'node:buffer';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { firstInvalidUtf8Byte } from './decode-input-text.js';

/** How many bytes a UTF-8 sequence that starts with `lead` takes (1 for a byte that starts none). */
const sequenceLength = (lead: number) => (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1);

/** Where the last UTF-8 sequence of `bytes` starts when `bytes` end before it does; else their length. */
function completeLength(bytes: Uint8Array): number {
  for (let index = bytes.length - 1; index >= Math.max(0, bytes.length - 3); index--) {
    const byte = bytes[index] ?? 0;
    // A continuation byte: its sequence started further back.
    if ((byte & 0xc0) === 0x80) continue;
    return bytes.length - index < sequenceLength(byte) ? index : bytes.length;
  }
  return bytes.length;
}

/** `input`'s bytes as text, chunk by chunk, a sequence split between chunks joined first. */
async function* utf8Chunks(input: AsyncIterable<Uint8Array | string>, source: string): AsyncGenerator<string> {
  let carried: Buffer = Buffer.alloc(0);
  // Bytes before `carried`, for the offset of a bad one.
  let offset = 0;
  const refuse = (bytes: Buffer) => {
    const at = offset + Math.max(0, firstInvalidUtf8Byte(bytes, bytes.toString('utf8')));
    return new SlidingContextError('INPUT_NOT_TEXT', `${source} is not valid UTF-8 (byte ${at}); JSON must be UTF-8, so save it as UTF-8.`);
  };
  for await (const chunk of input) {
    const bytes = Buffer.concat([carried, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
    const complete = bytes.subarray(0, completeLength(bytes));
    if (!isUtf8(complete)) throw refuse(complete);
    // Nothing to give is given as nothing: an empty chunk would part a \r from its \n.
    if (complete.length > 0) yield complete.toString('utf8');
    offset += complete.length;
    carried = bytes.subarray(complete.length);
  }
  // A sequence the input ends in the middle of.
  if (carried.length > 0) throw refuse(carried);
}

/**
 * The lines of `input` (a file's or stdin's bytes), without their line ends, decoded as UTF-8 as
 * they come. A byte that is not UTF-8 fails the read with `INPUT_NOT_TEXT`, naming its offset,
 * instead of being read as a replacement character.
 */
export function readUtf8Lines(input: AsyncIterable<Uint8Array | string>, source: string): AsyncIterable<string> {
  return createInterface({ input: Readable.from(utf8Chunks(input, source)), crlfDelay: Number.POSITIVE_INFINITY });
}
