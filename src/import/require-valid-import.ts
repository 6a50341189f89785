import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import { type UnansweredCall, unansweredCallsOf } from '../exchange/aborted-results.js';
import { checkPairing } from '../exchange/check-pairing.js';
import { startsExchange } from '../exchange/detect-exchanges.js';
import { leadInError, pairingError } from '../exchange/require-valid-conversation.js';
import { replayEvents } from '../message/apply-events.js';
import { isModelMessage, type Message } from '../message/message.js';

/**
 * Checks what an import makes, as `requireValidConversation` checks a conversation: the agent's
 * `stored` messages, then the `imported` ones, events applied. A problem is named by its position
 * in what was read (`messages[1]`), not among what the model sees after the stored messages;
 * `importedFrom` is the position of `imported[0]` there (a sync appends the end of a body).
 * @throws SlidingContextError `INVALID_CONVERSATION`, the pairing codes, `UNKNOWN_MARK` or `INVALID_PIN`
 */
export function requireValidImport(stored: readonly Message[], imported: readonly Message[], importedFrom = 0): UnansweredCall[] {
  // Clears and rewinds (in the stored part too) drop messages from what the model sees: each
  // message keeps its index in the history the events are applied to, and is named by it.
  const history = [...stored, ...imported].map((message, index) => ({ message, index }));
  const named = (index: number) => index < stored.length
    ? { index, within: 'In the agent\'s stored history, ' }
    : { index: index - stored.length + importedFrom, within: stored.length > 0 ? 'In the conversation being imported, ' : '' };
  const within = (error: SlidingContextError, at: { within: string }) => (at.within === '' ? error : new SlidingContextError(error.code, `${at.within}${error.message}`));
  let replaying = 0;
  let visible: typeof history;
  try {
    visible = replayEvents(history, (entry) => {
      replaying = entry.index;
      return entry.message;
    }).visible.filter((entry) => isModelMessage(entry.message));
  } catch (error) {
    // A rewind to no reachable mark, or a pin of no message, names its index in the whole history.
    const where = `messages[${replaying}]`;
    if (!(isSlidingContextError(error, 'UNKNOWN_MARK') || isSlidingContextError(error, 'INVALID_PIN')) || !error.message.startsWith(where)) throw error;
    const at = named(replaying);
    throw within(new SlidingContextError(error.code, `messages[${at.index}]${error.message.slice(where.length)}`), at);
  }
  const messages = visible.map((entry) => entry.message);
  for (const [index, message] of messages.entries()) {
    if (startsExchange(message)) break;
    if (message.role !== 'system' && message.role !== 'event') {
      const at = named(visible[index]?.index ?? index);
      throw within(leadInError(at.index, message.role), at);
    }
  }
  const problems = checkPairing(messages);
  for (const problem of problems) {
    if (problem.code === 'MISSING_TOOL_RESULT') continue;
    const at = named(visible[problem.messageIndex]?.index ?? problem.messageIndex);
    throw within(pairingError({ ...problem, code: problem.code, messageIndex: at.index }), at);
  }
  return unansweredCallsOf(messages, problems);
}
