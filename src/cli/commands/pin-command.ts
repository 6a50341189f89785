import type { PinFlags } from './pin-command-line.js';
import { openConversation } from '../../conversation/conversation.js';
import type { PinHistory } from '../../conversation/exchange-history.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { renderPins, storedPinLines } from '../render/pins-list.js';
import { agentTarget, print } from './store-commands.js';

/** The seq argument as a whole number ≥ 1. */
function parseSeq(seq: string, action: string): number {
  const value = Number(seq);
  if (!/^\d+$/.test(seq.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new SlidingContextError('INVALID_OPTION', `${action}: "${seq}" is not a seq; give the whole number \`history --all --json\` shows for the message, e.g. 3.`);
  }
  return value;
}

/**
 * `pin <agent> <seq>` and `unpin <agent> <seq>`: a pin or unpin event in the agent's history,
 * checked first against the window the agent's settings (or the flags) give. Prints each pin with
 * where the window sends it.
 */
export async function runPinCommand(action: 'pin' | 'unpin', agentId: string, seq: string, flags: PinFlags, io: CliIo): Promise<void> {
  const message = { agentId: flags.from ?? agentId, seq: parseSeq(seq, action) };
  await withCliStore(io, flags, async (store) => {
    const { provider, model, settings } = await agentTarget(io, store, agentId, flags);
    const counter = await loadCliCounter(io, provider, model);
    const conversation = await openConversation({ store, agentId, provider, model, counter, ...settings });
    let changed = true;
    if (action === 'pin') changed = await conversation.pin(message);
    else await conversation.unpin(message);
    const view = await conversation.historyView();
    const pins: readonly PinHistory[] = view.pins ?? [];
    const done = action === 'pin' ? (changed ? 'pinned' : 'already pinned') : 'unpinned';
    const json = { agentId, action, message, changed, budgetTokens: view.plan.budgetTokens, floorTokens: view.plan.floorTokens, pins };
    const lines = renderPins(storedPinLines(pins, agentId), view.plan);
    print(io, flags.json, json, [`${done}: seq ${message.seq}${message.agentId === agentId ? '' : ` of ${message.agentId}`}`, ...(lines.length > 0 ? lines : ['Pins       none'])].join('\n'));
  }, { create: false });
}
