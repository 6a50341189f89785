import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUtf8Lines } from './read-utf8-lines.js';

/** The lines `readUtf8Lines` reads from `bytes` given in chunks cut at `cuts`. */
async function linesOf(bytes: Buffer, cuts: readonly number[]): Promise<string[]> {
  const chunks = [0, ...cuts, bytes.length].slice(1).map((end, index, ends) => bytes.subarray(index === 0 ? 0 : ends[index - 1], end));
  const lines: string[] = [];
  for await (const line of readUtf8Lines(Readable.from(chunks), 'session.jsonl')) lines.push(line);
  return lines;
}

describe('readUtf8Lines', () => {
  const text = '{"a":"café"}\r\n{"b":"日本語 🦆"}\n{"c":1}\n';
  const bytes = Buffer.from(text);

  it('reads the same lines wherever the chunks cut the bytes, inside a character too', async () => {
    for (let first = 0; first <= bytes.length; first++) {
      for (const second of [first, first + 1, first + 2, first + 3].filter((cut) => cut <= bytes.length)) {
        expect(await linesOf(bytes, [first, second]), `cut at ${first} and ${second}`).toEqual(['{"a":"café"}', '{"b":"日本語 🦆"}', '{"c":1}']);
      }
    }
  });

  it('refuses a byte that is not UTF-8, wherever it is and however the chunks fall, naming its offset', async () => {
    for (const at of [0, 5, 9, bytes.length - 1]) {
      const bad = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), Buffer.from('x'), bytes.subarray(at)]);
      for (const cut of [0, at, at + 1, bad.length]) {
        await expect(linesOf(bad, [cut]), `0xe9 at ${at}, cut at ${cut}`).rejects.toMatchObject({
          code: 'INPUT_NOT_TEXT',
          message: `session.jsonl is not valid UTF-8 (byte ${at}); JSON must be UTF-8, so save it as UTF-8.`,
        });
      }
    }
    // Input that ends in the middle of a character.
    await expect(linesOf(Buffer.concat([bytes, Buffer.from('日').subarray(0, 2)]), [])).rejects.toMatchObject({ code: 'INPUT_NOT_TEXT', message: expect.stringContaining(`(byte ${bytes.length})`) });
  });
});
