import type { Conversation } from '../../conversation/conversation.js';
import { formatCount } from '../render/format-count.js';

/**
 * The chat's `/uncompact`: sets aside the summary in force (the history keeps it). Answers the
 * line to print once the scrollback is drawn again.
 * @throws SlidingContextError `NO_SUMMARY` when no summary is in force
 */
export async function runChatUncompactCommand(conversation: Conversation): Promise<string> {
  const { undone, restored } = await conversation.uncompact();
  const now = restored ? `the summary before it (${formatCount(restored.coveredExchanges, 'exchange')}) is in force again` : 'no summary is in force now';
  return `uncompacted: the summary of ${formatCount(undone.coveredExchanges, 'exchange')} is set aside (the history keeps it); ${now}`;
}
