import type { ConversationEvent } from '../../conversation/conversation-events.js';

/** The type of the data chunks a stream carries the window's events in: `data-sliding-context`. */
export const MASTRA_EVENT_CHUNK = 'data-sliding-context';

/** The slice of Mastra's logger (`IMastraLogger`) the events go to. */
export interface EventLogger {
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
}

/** The slice of a processor's stream writer (`ProcessorStreamWriter`) the events go to. */
export interface EventWriter {
  custom(data: { type: `data-${string}`; data: unknown; transient?: boolean }): Promise<void>;
}

/**
 * Reports the window's events as Mastra reports its own: a line in the agent's logger
 * (`sliding-context: exchange-evicted`, with the event), and when the agent streams, a transient
 * `data-sliding-context` chunk. Events are taken from `events`, which is left empty.
 */
export async function reportMastraEvents(events: ConversationEvent[], logger: EventLogger | undefined, writer: EventWriter | undefined): Promise<void> {
  for (const event of events.splice(0)) {
    const line = `sliding-context: ${event.type}`;
    if (event.type === 'summary-failed') logger?.warn(line, event);
    else logger?.info(line, event);
    await writer?.custom({ type: MASTRA_EVENT_CHUNK, data: event, transient: true });
  }
}
