import { toolCallsOf, toolResultsOf } from '../exchange/tool-parts.js';
import { isRecord } from '../message/is-record.js';
import type { ModelMessage } from '../message/message.js';
import { parseDigest } from './_digest-state.js';
import { CONSTRAINT_CHARACTERS, clip, constraintSentences, textOf } from './_fold-exchange.js';
import { pathsIn } from './_text-paths.js';
import { readToolCall } from './_tool-call-reading.js';
import { toolOutcome } from './_tool-outcome.js';

/** What a loss report lists, in the order it lists them: the user's rules first, numbers last. */
export const LOSS_KINDS = ['constraint', 'error', 'path', 'identifier', 'url', 'number'] as const;

/** The kind of a thing that left the model's view. */
export type LossKind = (typeof LOSS_KINDS)[number];

/** A thing an exchange holds that the model may need later. */
export interface LossCandidate {
  readonly kind: LossKind;
  readonly text: string;
}

/** A name, path or URL is kept up to this many characters. */
const NAME_CHARACTERS = 200;
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/g;
/** A code symbol as the user or the assistant writes it: in backticks, or shaped like one (camelCase, PascalCase, snake_case, `name()`). */
const QUOTED_SYMBOL = /`([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\(\))?`/g;
const BARE_SYMBOL = new RegExp(
  ['[a-z_$][a-z0-9_$]*[A-Z][\\w$]*', '[A-Z][a-z0-9]+[A-Z][\\w$]*', '[A-Za-z][A-Za-z0-9]*_[\\w$]*[A-Za-z0-9]', '[A-Za-z_$][\\w$]*(?=\\(\\))']
    .map((shape) => `(?<![\\w$.@/\\\\-])(?:${shape})(?![\\w$/\\\\])`).join('|'),
  'g',
);
/** A number of two characters or more, with a unit written against it (`120`, `3.5`, `10:30`, `50ms`, `80%`). */
const NUMBER = /(?<![\w.,:/-])\d+(?:[.,:]\d+)*(?:%|[A-Za-z]{1,3})?(?![\w%])/g;

/** A word can name a path only with a slash or a dot in it (see _text-paths.ts): the others spare the path search. */
const MAY_NAME_PATH = /[./]/;
/** A word can name a code symbol only with a capital, an underscore, a backtick or a parenthesis in it. */
const MAY_NAME_SYMBOL = /[A-Z_`(]/;
/** Outside backticks, only with a capital, an underscore or a parenthesis: the shapes of a bare symbol. */
const MAY_SHAPE_SYMBOL = /[A-Z_(]/;
/** Whether a word names a file path, as `pathsIn` finds one (the quick test first). */
export const namesPath = (word: string) => MAY_NAME_PATH.test(word) && pathsIn(word).length > 0;
/** Whether a word could shape a bare code symbol (outside backticks): `identifiersIn` searches no other word. */
export const mayShapeSymbol = (word: string) => MAY_SHAPE_SYMBOL.test(word);
/** Whether a word names a code symbol, as `identifiersIn` finds one (the quick test first). */
export const namesSymbol = (word: string) => MAY_NAME_SYMBOL.test(word) && identifiersIn(word).length > 0;

function urlsIn(text: string): string[] {
  return [...text.matchAll(URL_PATTERN)].map((match) => match[0].replace(/[.,;:!?)\]}]+$/, ''));
}

/** The code symbols shaped like one in a text (camelCase, PascalCase, snake_case, `name()`), backticks aside. */
export function bareSymbolsIn(text: string): string[] {
  return [...text.matchAll(BARE_SYMBOL)].map((match) => match[0]);
}

/** The code symbols a text names: in backticks, or shaped like one in its prose (paths and URLs aside). */
export function identifiersIn(text: string): string[] {
  const quoted = [...text.matchAll(QUOTED_SYMBOL)].map((match) => match[1] ?? '');
  // Paths and URLs are their own kinds: their words are not read as symbols. A symbol lies within
  // a word, so the words that cannot shape one are left out: they change no match.
  const prose = text
    .replace(URL_PATTERN, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .split(/\s+/)
    .filter((word) => MAY_SHAPE_SYMBOL.test(word) && !namesPath(word))
    .join(' ');
  const bare = bareSymbolsIn(prose);
  return [...quoted, ...bare].filter((name) => name.length >= 3);
}

function numbersIn(text: string): string[] {
  // Only a word with a digit can hold a number; the words left out change no match (each is read between spaces).
  const prose = text.replace(URL_PATTERN, ' ').split(/\s+/).filter((word) => /\d/.test(word) && !namesPath(word) && !namesSymbol(word)).join(' ');
  return [...prose.matchAll(NUMBER)].map((match) => match[0]).filter((number) => number.length >= 2);
}

/** Every string an argument holds, depth first. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isRecord(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * The things one exchange holds, as the digest reads them where it can: the constraint sentences
 * of its request, the paths its tool calls touch, the first error line of each failed step; and,
 * from the user's and the assistant's text, the paths, code symbols and URLs named (numbers from
 * the user's text only: the assistant's and the tools' are too many to matter). In order, repeats kept.
 */
export function lossCandidates(messages: readonly ModelMessage[]): LossCandidate[] {
  const found: LossCandidate[] = [];
  const add = (kind: LossKind, texts: readonly string[], characters = NAME_CHARACTERS) => {
    for (const text of texts) if (text.trim() !== '') found.push({ kind, text: clip(text, characters) });
  };
  const [opening] = messages;
  if (opening?.role === 'user') add('constraint', constraintSentences(textOf(opening).trim()), CONSTRAINT_CHARACTERS);
  for (const message of messages) {
    if (message.role === 'user' || message.role === 'assistant') {
      const text = textOf(message);
      add('path', pathsIn(text));
      add('identifier', identifiersIn(text));
      add('url', urlsIn(text));
      if (message.role === 'user') add('number', numbersIn(text));
    }
    for (const { part } of toolCallsOf(message)) {
      add('path', readToolCall(part).touches.map((touch) => touch.path));
      add('url', stringsIn(part.input).flatMap(urlsIn));
    }
    for (const { part } of toolResultsOf(message)) {
      const outcome = toolOutcome(part.output);
      if (outcome.failed && outcome.errorLine !== undefined) add('error', [outcome.errorLine]);
    }
  }
  return found;
}

/**
 * The things a summary being replaced holds: read back as a digest where it is one (its
 * constraints, files and errors), and, from the rest of its text (requests, answers, another
 * summarizer's prose), the constraint sentences of its requests and the paths, symbols and URLs named.
 */
export function summaryLossCandidates(summary: string): LossCandidate[] {
  const state = parseDigest(summary);
  const found: LossCandidate[] = [];
  const add = (kind: LossKind, texts: readonly string[], characters = NAME_CHARACTERS) => {
    for (const text of texts) if (text.trim() !== '') found.push({ kind, text: clip(text, characters) });
  };
  add('constraint', [...state.constraints, ...state.requests.flatMap(constraintSentences)], CONSTRAINT_CHARACTERS);
  add('error', [...state.errors.values()].map((error) => error.line));
  add('path', [...state.files.keys()]);
  const prose = [...state.requests, ...state.decisions, ...state.done, ...state.openItems, ...state.earlier].join('\n');
  add('path', pathsIn(prose));
  add('identifier', identifiersIn(prose));
  add('url', urlsIn(prose));
  return found;
}

/** Every text a message shows the model: its text and reasoning, tool-call arguments, tool outputs. */
export function shownTexts(message: ModelMessage): string[] {
  if (typeof message.content === 'string') return [message.content];
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text);
    else if (part.type === 'tool-call') for (const text of stringsIn(part.input)) texts.push(text);
  }
  for (const { part } of toolResultsOf(message)) texts.push(toolOutcomeText(part.output));
  return texts;
}

function toolOutcomeText(output: Parameters<typeof toolOutcome>[0]): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return stringsIn(output.value).join('\n');
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
  }
}
