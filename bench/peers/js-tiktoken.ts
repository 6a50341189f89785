/**
 * js-tiktoken's o200k_base, for the counting benchmarks: a pure-JavaScript port of tiktoken.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';

/** Counts text as ordinary text (no special tokens), as the other counters do. */
export function jsTiktokenO200k(): (text: string) => number {
  const encoding = new Tiktoken(o200kRanks);
  return (text) => encoding.encode(text, [], []).length;
}
