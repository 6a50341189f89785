import type { Message } from '../message/message.js';
import type { UnansweredCall } from './aborted-results.js';
import { startsExchange } from './detect-exchanges.js';
import { requireValidConversation } from './require-valid-conversation.js';

/**
 * `requireValidConversation` for a history checked again and again as it grows: when the
 * messages extend those checked last time (the same messages, then more), only the last
 * exchange checked and what follows are checked again, since calls and results pair within one
 * exchange. Anything else is checked whole. It answers (or throws) exactly as
 * `requireValidConversation` does.
 */
export class ExtendingConversationCheck {
  #messages: Message[] = [];
  /** Where the last exchange of the messages checked starts (0: checked whole next time). */
  #tailStart = 0;
  /** The calls left unanswered before `#tailStart`. */
  #settled: UnansweredCall[] = [];

  /** The calls the messages leave unanswered. @throws SlidingContextError as `requireValidConversation` does */
  check(messages: readonly Message[]): UnansweredCall[] {
    const start = beginsWith(messages, this.#messages) ? this.#tailStart : 0;
    let calls: UnansweredCall[];
    if (start === 0) {
      this.#messages = [];
      this.#tailStart = 0;
      calls = requireValidConversation(messages);
    } else {
      let tail: UnansweredCall[];
      try {
        tail = requireValidConversation(messages.slice(start));
      } catch (error) {
        // The error names the message by its place in the whole history.
        this.#messages = [];
        this.#tailStart = 0;
        requireValidConversation(messages);
        throw error;
      }
      calls = [...this.#settled, ...tail.map((call) => ({ ...call, callMessage: call.callMessage + start }))];
    }
    for (let index = this.#messages.length; index < messages.length; index++) this.#messages.push(messages[index] as Message);
    let tailStart = messages.length - 1;
    while (tailStart > start && !startsExchange(messages[tailStart] as Message)) tailStart--;
    this.#tailStart = tailStart > 0 && startsExchange(messages[tailStart] as Message) ? tailStart : 0;
    this.#settled = calls.filter((call) => call.callMessage < this.#tailStart);
    return calls;
  }
}

/**
 * Whether `messages` begin with `prefix`: the same message objects, or where one was built again
 * (a summary message is, at each plan), one with the same JSON.
 */
export function beginsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (messages.length < prefix.length) return false;
  return prefix.every((message, index) => {
    const other = messages[index];
    return message === other || JSON.stringify(message) === JSON.stringify(other);
  });
}
