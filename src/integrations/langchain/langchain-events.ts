import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch';
import type { ConversationEvent } from '../../conversation/conversation-events.js';

/** The prefix of the custom events' names: `sliding-context/exchange-evicted`, `sliding-context/overflow-retried`, … */
export const LANGCHAIN_EVENT_PREFIX = 'sliding-context/';

/**
 * Reports the window's events to LangChain as it reports its own: a custom event to the run's
 * callbacks (`handleCustomEvent`, `streamEvents`' `on_custom_event`, LangSmith traces) and a chunk
 * to the graph's `custom` stream. Events are taken from `events`, which is left empty.
 */
export async function dispatchLangChainEvents(events: ConversationEvent[], writer: ((chunk: unknown) => void) | undefined): Promise<void> {
  for (const event of events.splice(0)) {
    writer?.({ [LANGCHAIN_EVENT_PREFIX + event.type]: event });
    try {
      await dispatchCustomEvent(LANGCHAIN_EVENT_PREFIX + event.type, event);
    } catch {
      // Called outside a run (no callbacks to report to): the OpenTelemetry span still records it.
    }
  }
}
