/**
 * The seed's Ikigai algorithm, written from its design text: after every turn, build the next
 * request (system prompt, tools, every message in the window), serialize it, estimate its tokens
 * as bytes / 4; while over budget, drop the oldest whole turn and do it all again. The most
 * recent turn always stays.
 */
import type { ModelMessage } from '../../src/message/message.js';
import { buildRequest } from '../../src/providers/wire-format.js';
import type { KeeperContext, WindowKeeper } from './window-keeper.js';

export function ikigaiBaselineKeeper(context: KeeperContext): WindowKeeper {
  const { model, system, tools, budgetTokens } = context;
  // The in-memory window, turn by turn: a turn starts at a user message.
  const turns: ModelMessage[][] = [];
  const add = (messages: readonly ModelMessage[]) => {
    for (const message of messages) {
      const last = turns.at(-1);
      if (message.role === 'user' || !last) turns.push([message]);
      else last.push(message);
    }
  };
  const window = () => turns.flat();
  const estimate = () => Buffer.byteLength(JSON.stringify(buildRequest('openai-chat', { model, system, tools, messages: window() }))) / 4;
  const prune = () => {
    while (turns.length > 1 && estimate() > budgetTokens) turns.shift();
  };
  return {
    name: 'Ikigai baseline (bytes/4 of the request)',
    setUp(messages) {
      // The window as the last turn of the history left it: whole turns back to the budget.
      add(messages);
      const size = (index: number) => Buffer.byteLength(JSON.stringify(turns[index]));
      let keep = turns.length - 1;
      let bytes = size(keep);
      while (keep > 0 && bytes + size(keep - 1) <= budgetTokens * 4) bytes += size(--keep);
      turns.splice(0, keep);
      prune();
      return Promise.resolve();
    },
    turn(turn) {
      add(turn);
      prune();
      return Promise.resolve();
    },
    lastWindow: window,
    close: () => Promise.resolve(),
  };
}
