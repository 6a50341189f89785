import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { ExchangeHistory } from './exchange-history.js';
import type { MessagePosition } from './conversation-store.js';
import { indexOfPosition } from './kept-cut.js';

/**
 * Checks `compact --through`: an exchange number of the history (from 0), not the latest, which
 * always stays in the window.
 * @throws SlidingContextError `INVALID_OPTION` naming `where`, the number, and what would do
 */
export function validateThroughExchange(through: number, exchanges: number, where = 'through'): void {
  if (!Number.isSafeInteger(through) || through < 0) {
    throw new SlidingContextError('INVALID_OPTION', `${where}: ${through} is not an exchange number; give a whole number from 0, as history numbers the exchanges (#12 → 12).`);
  }
  if (exchanges < 2) {
    throw new SlidingContextError('INVALID_OPTION', `${where} ${through}: the history has ${exchanges === 0 ? 'no exchange' : 'only its latest exchange'}, and the latest always stays in the window; nothing can be condensed.`);
  }
  const latest = exchanges - 1;
  if (through > latest) {
    throw new SlidingContextError('INVALID_OPTION', `${where} ${through} is out of range: the history has ${exchanges} exchanges, #0–#${latest}; give at most ${latest - 1}.`);
  }
  if (through === latest) {
    throw new SlidingContextError('INVALID_OPTION', `${where} ${through} would leave no latest exchange: #${latest} is the latest, and it always stays in the window; give at most ${latest - 1}.`);
  }
}

/**
 * The last message of a window state that `compact --through` may condense: the one before the
 * first message of the exchange after `through`; -1 when that exchange lies before what the
 * state holds (then nothing the state holds is at or before `through`).
 */
export function throughMessageIndex(history: readonly ExchangeHistory[], positions: readonly (MessagePosition | undefined)[], through: number): number {
  validateThroughExchange(through, history.length);
  const next = history[through + 1] as ExchangeHistory;
  const at = indexOfPosition(positions, { agentId: next.agentId, seq: next.firstSeq });
  return at === -1 ? -1 : at - 1;
}
