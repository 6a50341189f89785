import { utf8ByteLength } from '../tokens/bytes-per-token-counter.js';

/** Characters of text shown before the word found, so that the excerpt gives its context. */
const LEAD_CHARACTERS = 80;

/** The words of a search query, lower case: quoted or not, without those excluded (`-word`) and `or`. */
export function queryWords(query: string): string[] {
  const words: string[] = [];
  for (const match of query.matchAll(/(^|[\s"(])(-?)([\p{L}\p{N}_]+(?:[.\-/][\p{L}\p{N}_]+)*)/gu)) {
    const word = (match[3] ?? '').toLowerCase();
    if (match[2] === '' && word !== 'or') words.push(word);
  }
  return words;
}

/**
 * Where the text first shows a word of the query: the word itself, else its stem (the word less
 * its last three letters, at least four kept), as PostgreSQL's English stemming matches
 * "migrations" for "migration". Zero when none is found.
 */
function firstMatch(text: string, words: readonly string[]): number {
  const lower = text.toLowerCase();
  let first = Number.POSITIVE_INFINITY;
  for (const word of words) {
    let at = lower.indexOf(word);
    if (at === -1 && word.length > 4) at = lower.indexOf(word.slice(0, Math.max(4, word.length - 3)));
    if (at !== -1) first = Math.min(first, at);
  }
  return Number.isFinite(first) ? Math.min(first, text.length) : 0;
}

/**
 * A short excerpt of `text` around the first word of `query` it shows, at most `characters`
 * long, whitespace folded to single spaces, with `…` where it was cut.
 */
export function searchExcerpt(text: string, query: string, characters: number): string {
  const at = firstMatch(text, queryWords(query));
  const start = Math.max(0, at - LEAD_CHARACTERS);
  const end = Math.min(text.length, start + characters);
  // Whole words at the edges: a cut moves to the next space when there is one near.
  const from = start === 0 ? 0 : nextSpace(text, start, at);
  const to = end === text.length ? end : previousSpace(text, end, Math.max(from, at) + 1);
  const excerpt = text.slice(from, to).replace(/\s+/g, ' ').trim();
  return `${from > 0 ? '…' : ''}${excerpt}${to < text.length ? '…' : ''}`;
}

function nextSpace(text: string, from: number, limit: number): number {
  const space = text.slice(from, limit).search(/\s/);
  return space === -1 ? from : from + space + 1;
}

function previousSpace(text: string, to: number, limit: number): number {
  const space = text.slice(limit, to).search(/\s\S*$/);
  return space === -1 ? to : limit + space;
}

/** A token estimate of `text` that is not below a real tokenizer's for prose and code: UTF-8 bytes / 4, rounded up. */
export function estimatedTokens(text: string): number {
  return Math.ceil(utf8ByteLength(text) / 4);
}

/** The longest start of `text` within `bytes` UTF-8 bytes, never splitting a surrogate pair. */
export function cutToBytes(text: string, bytes: number): string {
  let used = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.codePointAt(index) ?? 0;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (used + size > bytes) break;
    used += size;
    index += code >= 0x10000 ? 2 : 1;
  }
  return text.slice(0, index);
}
