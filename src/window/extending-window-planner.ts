import { beginsWith } from '../exchange/extending-conversation-check.js';
import type { Message } from '../message/message.js';
import { DEFAULT_PROVIDER, defaultModelFor, type TokenCounter } from '../tokens/token-counter.js';
import { planWindow, type PlanWindowOptions } from './plan-window.js';
import type { WindowPlan } from './window-plan.js';
import { WindowState } from './window-state.js';

/**
 * Plans exactly as `planWindow` does (given a `previousCutoff` and no `previousMessageCount`,
 * as a view of a stored history plans it), holding a {@link WindowState} from one call to the
 * next: when a call's messages extend the previous call's (the same messages, then more), only
 * the new ones are appended, so a history that keeps growing is planned in time that grows with
 * what was added and the plan written out, not with counting and pairing everything again.
 * Anything else (other settings, a message that differs) starts a new state.
 *
 * Each call's counter must count a message as the calls before counted it (stored counts do).
 */
export class ExtendingWindowPlanner {
  #state: WindowState | undefined;
  #messages: Message[] = [];
  #settings = '';
  /** The counter of the call running: the state counts what it appends through it. */
  #counter: TokenCounter | undefined;
  readonly #forwarding: TokenCounter = {
    countMessage: (input) => this.#current.countMessage(input),
    countPreamble: (input) => this.#current.countPreamble(input),
    count: (input) => this.#current.count(input),
  };

  get #current(): TokenCounter {
    return this.#counter as TokenCounter;
  }

  /** The plan `planWindow(options)` gives. */
  plan(options: PlanWindowOptions): WindowPlan {
    if (options.previousMessageCount !== undefined) return planWindow(options);
    this.#counter = options.counter;
    const provider = options.provider ?? DEFAULT_PROVIDER;
    const target = { provider, model: options.model ?? defaultModelFor(provider) };
    const preamble = options.counter.countPreamble({ ...target, system: options.system, tools: options.tools });
    const { system, tools, budgetTokens, pinFirstExchange, policy } = options;
    const settings = JSON.stringify({ ...target, system, tools, budgetTokens, pinFirstExchange, policy, preamble });
    if (this.#state === undefined || settings !== this.#settings || !beginsWith(options.messages, this.#messages)) {
      this.#state = new WindowState({ ...options, counter: this.#forwarding });
      this.#messages = [];
      this.#settings = settings;
    }
    const added = options.messages.slice(this.#messages.length);
    try {
      this.#state.append(added);
    } catch {
      // planWindow gives the error, in its own words.
      this.#state = undefined;
      return planWindow(options);
    }
    for (const message of added) this.#messages.push(message);
    this.#state.placeCut(options.previousCutoff);
    return this.#state.plan();
  }
}
