import type { ConversationEvent } from './conversation-events.js';
import type { CondenseHost } from './condenser.js';
import type { ConversationWindow } from './conversation-window.js';

/**
 * What the condenser reads from a conversation's window and records through it. A range is
 * recorded after `beforeRecord` (the eviction records that wait: a summary comes after what was
 * evicted before it).
 */
export function windowCondenseHost(window: ConversationWindow, beforeRecord: () => Promise<void>, emit: (event: ConversationEvent) => void): CondenseHost {
  return {
    state: () => window.state,
    summary: () => window.summary,
    positionOf: (index) => window.positions[index],
    recordRange: async (range) => {
      await beforeRecord();
      await window.recordRange(range);
    },
    pins: () => window.pinTexts(),
    previewSummary: (first, last, data) => window.preview({ kind: 'summary', first, last, data: { ...data }, createdAt: new Date() }),
    emit,
  };
}
