import { readdirSync, readFileSync } from 'node:fs';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEncoding } from './load-encoding.js';
import type { EncodingName } from './text-encoding.js';

const corpusDir = new URL('../__fixtures__/corpus/', import.meta.url);
const files = readdirSync(corpusDir).filter((name) => name.endsWith('.txt')).sort();
const corpus = files.map((name) => ({ name, text: readFileSync(new URL(name, corpusDir), 'utf8') }));

describe.each<EncodingName>(['o200k_base', 'cl100k_base'])('%s equals the tiktoken reference', (name) => {
  const reference = get_encoding(name);
  afterAll(() => {
    reference.free();
  });

  it('the corpus is over 1 MB and covers every content type', () => {
    const bytes = corpus.reduce((sum, file) => sum + Buffer.byteLength(file.text), 0);
    expect(bytes).toBeGreaterThan(1_000_000);
    expect(files).toEqual(['base64.txt', 'cjk.txt', 'code.txt', 'cyrillic.txt', 'edge-cases.txt', 'emoji.txt', 'json.txt', 'minified-js.txt', 'prose.txt']);
    const edges = corpus.find((file) => file.name === 'edge-cases.txt')?.text ?? '';
    for (const needle of ['\uFEFF', '\u0085', '<|endoftext|>', '<|fim_prefix|>']) {
      expect(edges).toContain(needle);
    }
  });

  it.each(files)('%s: whole file and every paragraph, 0 mismatches', async (file) => {
    const encoding = await loadEncoding(name);
    const text = corpus.find((entry) => entry.name === file)?.text ?? '';
    const mismatches: string[] = [];
    const paragraphs = text.split(/(?<=\n\n)/);
    for (const paragraph of paragraphs) {
      const expected = reference.encode_ordinary(paragraph).length;
      const actual = encoding.countText(paragraph);
      if (actual !== expected) mismatches.push(`${JSON.stringify(paragraph.slice(0, 60))}: ${actual} ≠ ${expected}`);
    }
    expect(mismatches).toEqual([]);
    expect(encoding.countText(text)).toBe(reference.encode_ordinary(text).length);
  });

  it('counts special-token strings as ordinary text instead of throwing', async () => {
    const encoding = await loadEncoding(name);
    const text = 'before <|endoftext|> after <|fim_prefix|><|im_start|>';
    expect(encoding.countText(text)).toBe(reference.encode_ordinary(text).length);
  });

  it('agrees on runs just over the split threshold, and on BOM and NEL in every position', async () => {
    const encoding = await loadEncoding(name);
    for (const text of ['='.repeat(4097), 'ab'.repeat(2100), ' '.repeat(5000) + 'x', '\uFEFF'.repeat(3), 'x \uFEFFy', ' \u0085\n', 'a\u0085 b', '\uFEFF<|endoftext|>']) {
      expect(encoding.countText(text)).toBe(reference.encode_ordinary(text).length);
    }
  });
});
