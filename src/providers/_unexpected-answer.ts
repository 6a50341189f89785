import { SlidingContextError } from '../errors/sliding-context-error.js';

/** What an answer's body was, in words: an HTML page or a bare JSON value is not what an API answers. */
function bodyKind(answer: unknown): string {
  if (typeof answer === 'string') return /^\s*</.test(answer) ? 'an HTML or XML page' : 'a string';
  if (answer === null) return 'null';
  if (Array.isArray(answer)) return 'an array';
  if (typeof answer === 'object') return 'an object without it';
  return `a ${typeof answer}`;
}

/**
 * The `UNEXPECTED_RESPONSE` error of a completion whose answer lacks `missing` (e.g.
 * `choices[0].message.content string`): what it was instead, and where to look.
 */
export function unexpectedAnswer(missing: string, answer: unknown): SlidingContextError {
  return new SlidingContextError('UNEXPECTED_RESPONSE', `the answer has no ${missing} (it is ${bodyKind(answer)}); check that the base URL points at the provider's API.`);
}
