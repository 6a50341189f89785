import type { ModelMessage } from '../../message/message.js';
import { frozenMessageCopy } from '../../conversation/same-message-content.js';
import { messageFromPrompt, type PromptMessage } from './language-model-prompt.js';
import { plainSnapshot, sameAsSnapshot } from './plain-value-snapshot.js';

/** Placed prompts remembered at most: those of the conversations placed most recently. */
const REMEMBERED_PROMPTS = 64;

/** A prompt as converted: a snapshot of each of its messages, and each one's neutral message. */
interface ConvertedMessages {
  readonly snapshots: readonly unknown[];
  /** `undefined` for a message left out (custom parts alone). */
  readonly neutral: readonly (ModelMessage | undefined)[];
}

/** The neutral messages of a prompt, and what to remember of it once it is placed. */
export interface ConvertedPrompt {
  readonly messages: ModelMessage[];
  readonly converted: ConvertedMessages;
}

/**
 * Converts a framework's language-model prompt to neutral messages, converting only the messages
 * past those of the latest prompt placed in the same conversation. A framework hands the whole
 * prompt on every call; its messages are compared with snapshots of that prompt's (identical
 * strings at once), which costs far less than converting and validating them again.
 */
export class PromptConversions {
  readonly #byAgent = new Map<string, ConvertedMessages>();
  readonly #ignoredOptions: ReadonlySet<string> | undefined;

  /**
   * `ignoredOptions`: namespaces of a message's or part's `providerOptions` that a framework
   * rewrites each time it builds the prompt (Mastra's `mastra`, a timestamp): a message that
   * differs from the one converted before only there is taken as converted, its conversion kept.
   */
  constructor(options: { readonly ignoredOptions?: readonly string[] } = {}) {
    this.#ignoredOptions = options.ignoredOptions && new Set(options.ignoredOptions);
  }

  /**
   * The neutral messages of `prompt`.
   * @throws SlidingContextError as `messageFromPrompt` does, for a message not converted before.
   */
  convert(prompt: readonly PromptMessage[]): ConvertedPrompt {
    const { from, length } = this.#longestPrefix(prompt);
    const snapshots = from.snapshots.slice(0, length);
    const neutral = from.neutral.slice(0, length);
    for (let index = length; index < prompt.length; index++) {
      const message = prompt[index] as PromptMessage;
      const converted = messageFromPrompt(message, index);
      // Frozen: sent again unchanged, the registry compares it with what it holds at once.
      neutral.push(converted && frozenMessageCopy(converted));
      snapshots.push(plainSnapshot(message));
    }
    return { messages: neutral.filter((message) => message !== undefined), converted: { snapshots, neutral } };
  }

  /** Remembers a converted prompt as the latest placed in the conversation `agentId`. */
  remember(agentId: string, prompt: ConvertedPrompt): void {
    this.#byAgent.delete(agentId);
    this.#byAgent.set(agentId, prompt.converted);
    for (const oldest of this.#byAgent.keys()) {
      if (this.#byAgent.size <= REMEMBERED_PROMPTS) break;
      this.#byAgent.delete(oldest);
    }
  }

  /** The remembered prompt that shares the most leading messages with `prompt`, and how many. */
  #longestPrefix(prompt: readonly PromptMessage[]): { from: ConvertedMessages; length: number } {
    let best: { from: ConvertedMessages; length: number } = { from: { snapshots: [], neutral: [] }, length: 0 };
    for (const converted of this.#byAgent.values()) {
      const { snapshots } = converted;
      let length = 0;
      while (length < snapshots.length && length < prompt.length && sameAsSnapshot(snapshots[length], prompt[length], this.#ignoredOptions)) length++;
      if (length > best.length) best = { from: converted, length };
    }
    return best;
  }
}
