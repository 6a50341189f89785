import type { Conversation } from '../../conversation/conversation.js';
import type { HistoryStore } from '../../store/history-store.js';

/**
 * The chat's `/pin [seq]` and `/unpin seq`: pins or unpins the message at the seq given, or for
 * `/pin` without one the user's last message. Answers the line to print (an `error:` line for a
 * missing or malformed seq).
 */
export async function runChatPinCommand(action: 'pin' | 'unpin', argument: string | undefined, store: HistoryStore, conversation: Conversation): Promise<string> {
  const { agentId } = conversation;
  const own = (await store.history(agentId)).filter((entry) => entry.agentId === agentId && entry.message.role === 'user' && typeof entry.message.content === 'string');
  const seq = argument === undefined && action === 'pin' ? own.at(-1)?.seq : Number(argument);
  if (seq === undefined || !Number.isSafeInteger(seq) || seq < 1) return `error: /${action} needs the seq of a message (/history --all in the CLI lists them)${action === 'pin' ? ', or none for your last message' : ''}`;
  if (action === 'unpin') {
    await conversation.unpin(seq);
    return `unpinned seq ${seq}`;
  }
  return (await conversation.pin(seq)) ? `pinned seq ${seq}: sent word for word in every window` : `seq ${seq} is pinned already`;
}
