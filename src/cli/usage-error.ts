import type { CommanderError } from 'commander';
import { SlidingContextError, type SlidingContextErrorCode } from '../errors/sliding-context-error.js';
import { printableText } from '../message/parse-json-text.js';

/** The codes of commander's usage errors that a caller may tell apart. */
const USAGE_CODES: Readonly<Record<string, SlidingContextErrorCode>> = {
  'commander.unknownOption': 'UNKNOWN_OPTION',
  'commander.unknownCommand': 'UNKNOWN_COMMAND',
};

/**
 * Commander's usage error (an unknown option, a missing argument, …) as a one-line
 * {@link SlidingContextError}: `UNKNOWN_OPTION`, `UNKNOWN_COMMAND`, else `INVALID_USAGE`.
 */
export function usageError(error: CommanderError): SlidingContextError {
  // Commander writes "error: …", sometimes with "(Did you mean …?)" on a second line.
  const message = error.message.replace(/^error: /, '').split('\n').map((line) => line.trim()).filter(Boolean).join(' ').replace(/\.$/, '');
  return new SlidingContextError(USAGE_CODES[error.code] ?? 'INVALID_USAGE', `${printableText(message)}; run with --help for usage.`, { cause: error });
}
