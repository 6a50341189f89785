import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-input-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

const conversation = (content: string) => JSON.stringify([{ role: 'user', content }, { role: 'assistant', content: 'Noted.' }]);
/** A conversation saved as Latin-1: its `é` is the one byte 0xE9, which UTF-8 has no character for. */
const latin1 = Buffer.from(conversation('Meet at the café.'), 'latin1');
const badByte = latin1.indexOf(0xe9);
/** The eight bytes every PNG file starts with, and nothing else. */
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('reading a conversation file or stdin', () => {
  it('refuses bytes that are not UTF-8 with INPUT_NOT_TEXT, naming the first, instead of reading them as replacement characters', async () => {
    const notUtf8 = { code: 'INPUT_NOT_TEXT', message: `session.json is not valid UTF-8 (byte ${badByte}); JSON must be UTF-8, so save it as UTF-8.` };
    await expect(runCli(['count', 'session.json'], { files: { 'session.json': latin1 } })).rejects.toMatchObject(notUtf8);
    await expect(runCli(['window', 'session.json'], { files: { 'session.json': latin1 } })).rejects.toMatchObject(notUtf8);
    // A replacement character the file holds as UTF-8 is text; the bad byte after it is named.
    const before = Buffer.from('[{"role":"user","content":"\uFFFD caf');
    const stdin = Buffer.concat([before, Buffer.from([0xe9]), Buffer.from('"}]')]);
    await expect(runCli(['count', '-'], { stdin })).rejects.toMatchObject({ code: 'INPUT_NOT_TEXT', message: expect.stringMatching(new RegExp(`^stdin is not valid UTF-8 \\(byte ${before.length}\\)`)) });
    const store = join(directory, 'store');
    await expect(runCli(['import', 'session.json', '--data-dir', store], { files: { 'session.json': latin1 } })).rejects.toMatchObject(notUtf8);
    expect(existsSync(store)).toBe(false);
  });

  it('refuses a JSONL file (a transcript, an export) with bytes that are not UTF-8, read line by line, naming the first', async () => {
    const line = JSON.stringify({ type: 'user', sessionId: 's', uuid: 'u0', parentUuid: null, message: { role: 'user', content: 'Meet at the café.' } });
    const session = Buffer.from(`${line}\n`, 'latin1');
    const store = join(directory, 'jsonl-store');
    const refused = { code: 'INPUT_NOT_TEXT', message: `session.jsonl is not valid UTF-8 (byte ${session.indexOf(0xe9)}); JSON must be UTF-8, so save it as UTF-8.` };
    await expect(runCli(['import', 'session.jsonl', '--data-dir', store], { files: { 'session.jsonl': session } })).rejects.toMatchObject(refused);
    await expect(runCli(['import', '-', '--format', 'claude-code', '--data-dir', store], { stdin: session })).rejects.toMatchObject({ ...refused, message: refused.message.replace('session.jsonl', 'stdin') });
    expect(existsSync(store)).toBe(false);
  });

  it('reads UTF-8 bytes, a byte order mark and a replacement character written as such included', async () => {
    const text = conversation('Meet at the café \uFFFD.');
    const expected = JSON.parse((await runCli(['count', '-', '--json'], { stdin: text })).stdout) as unknown;
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect(JSON.parse((await runCli(['count', 'session.json', '--json'], { files: { 'session.json': bytes } })).stdout)).toEqual(expected);
  });

  it('names a UTF-16 file as such, either byte order', async () => {
    const text = conversation('hi');
    for (const bytes of [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])]) {
      await expect(runCli(['count', 'session.json'], { files: { 'session.json': bytes } })).rejects.toMatchObject({
        code: 'INPUT_NOT_TEXT',
        message: 'session.json is UTF-16 (it starts with a UTF-16 byte order mark); JSON must be UTF-8, so save it as UTF-8.',
      });
    }
  });

  it('names a bare PNG signature as binary (INPUT_NOT_TEXT), not as bad JSON', async () => {
    const binary = { code: 'INPUT_NOT_TEXT', message: expect.stringMatching(/^image\.png is not text \(it holds binary bytes\)/) };
    await expect(runCli(['count', 'image.png'], { files: { 'image.png': pngSignature } })).rejects.toMatchObject(binary);
    await expect(runCli(['count', 'image.png'], { files: { 'image.png': pngSignature.toString('utf8') } })).rejects.toMatchObject(binary);
    await expect(runCli(['window', '-'], { stdin: pngSignature })).rejects.toMatchObject({ code: 'INPUT_NOT_TEXT' });
  });
});
