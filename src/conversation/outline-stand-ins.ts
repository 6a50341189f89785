import type { ModelMessage } from '../message/message.js';
import type { TokenCount } from '../tokens/token-counter.js';
import type { MessageOutline } from './conversation-store.js';

/** The counts planning knows, by message: a `Map`, or for a held plan {@link heldCounts}. */
export interface KnownCounts {
  get(message: ModelMessage): TokenCount | undefined;
  set(message: ModelMessage, count: TokenCount): unknown;
}

/** Each outlined message's skeleton, made once: a held outline that grew is planned with the same objects. */
const skeletons = new WeakMap<MessageOutline, ModelMessage>();
/** The stored count of each skeleton {@link heldSkeletonOf} made (the outline's, checked to be for the model planned). */
const skeletonCounts = new WeakMap<ModelMessage, TokenCount>();

/** {@link skeletonOf} made once per outlined message, its stored count kept with it (see {@link heldCounts}). */
export function heldSkeletonOf(entry: MessageOutline): ModelMessage {
  let skeleton = skeletons.get(entry);
  if (skeleton === undefined) {
    skeleton = skeletonOf(entry);
    skeletons.set(entry, skeleton);
    if (entry.count) skeletonCounts.set(skeleton, entry.count);
  }
  return skeleton;
}

/** The counts of a held plan: each skeleton's own, and those set for this plan (the summary's). */
export function heldCounts(): KnownCounts {
  const set = new Map<ModelMessage, TokenCount>();
  return { get: (message) => set.get(message) ?? skeletonCounts.get(message), set: (message, count) => set.set(message, count) };
}

/**
 * A stand-in for an outlined message with what planning reads: its role, its tool calls and
 * results with their ids, and an exchange start's title as its text. Planned with the stored
 * counts, it gives the same window as the message itself.
 */
export function skeletonOf(entry: MessageOutline): ModelMessage {
  // In part order: a result pairs with the nearest open call of its id, so order matters.
  const parts = entry.toolParts.map((part) =>
    part.type === 'tool-call'
      ? { type: 'tool-call' as const, toolCallId: part.toolCallId, toolName: part.toolName, input: {} }
      : { type: 'tool-result' as const, toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'text' as const, value: '' } },
  );
  const results = parts.filter((part) => part.type === 'tool-result');
  switch (entry.role) {
    case 'system':
      return { role: 'system', content: '' };
    case 'user':
      return { role: 'user', content: results.length > 0 ? results : (entry.title ?? '') };
    case 'assistant':
      return { role: 'assistant', content: parts };
    case 'tool':
      return { role: 'tool', content: results };
  }
}
