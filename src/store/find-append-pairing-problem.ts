import { checkPairing, type PairingProblem } from '../exchange/check-pairing.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { toolResultsOf } from '../exchange/tool-parts.js';
import type { Message } from '../message/message.js';

/** The pairing problems an append is refused for: a result with no call, or a second result. */
const REFUSED = new Set<PairingProblem['code']>(['ORPHANED_TOOL_RESULT', 'DUPLICATE_TOOL_RESULT']);

/**
 * The part of a batch that the exchange it is appended to can pair with: the messages before its
 * first rewind (what follows a rewind continues an older exchange), starting after its last
 * clear (what follows a clear pairs only within the batch). `offset` is its first index.
 */
function pairedPart(batch: readonly Message[]): { offset: number; messages: readonly Message[]; afterClear: boolean } {
  const rewind = batch.findIndex((message) => message.role === 'event' && message.kind === 'rewind');
  const checked = rewind === -1 ? batch : batch.slice(0, rewind);
  const clear = checked.findLastIndex((message) => message.role === 'event' && message.kind === 'clear');
  return clear === -1 ? { offset: 0, messages: checked, afterClear: false } : { offset: clear + 1, messages: checked.slice(clear + 1), afterClear: true };
}

/**
 * True when the store must read the exchange an append joins to check it: a tool result comes
 * before the batch's own first exchange start (and before any clear or rewind in it).
 */
export function needsOpenExchange(batch: readonly Message[]): boolean {
  const { messages, afterClear } = pairedPart(batch);
  if (afterClear) return false;
  for (const message of messages) {
    if (startsExchange(message)) return false;
    if (toolResultsOf(message).length > 0) return true;
  }
  return false;
}

/**
 * The first tool result of `batch` that would be stored without its call (or as a second result
 * for one call), with the pairing rule of `checkPairing`, given `openExchange`: the messages the
 * model sees from the latest exchange start to the end (what the batch continues). Its index is
 * the index in `batch`. Undefined when the batch pairs.
 */
export function findAppendPairingProblem(openExchange: readonly Message[], batch: readonly Message[]): PairingProblem | undefined {
  const { offset, messages, afterClear } = pairedPart(batch);
  const context = afterClear ? [] : openExchange.filter((message) => message.role !== 'event');
  const problem = checkPairing([...context, ...messages]).find((found) => found.messageIndex >= context.length && REFUSED.has(found.code));
  return problem && { ...problem, messageIndex: problem.messageIndex - context.length + offset };
}
