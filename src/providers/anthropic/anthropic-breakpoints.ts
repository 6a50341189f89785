import type { ContentBlockParam, MessageCreateParamsNonStreaming, MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { blocksIn } from './content-blocks.js';

/** The Messages API takes at most this many `cache_control` breakpoints in one request. */
export const MAX_BREAKPOINTS = 4;

/** Where a neutral message ended up in the body: a block of `system`, or a block of a message. */
export type BlockLocation = { readonly in: 'system'; readonly block: number } | { readonly in: 'messages'; readonly message: number; readonly block: number };

/** The places worth a breakpoint, most valuable first after the request's end. */
export interface BreakpointTargets {
  /** The last block the provider saw in the previous request: where this one reads its cache. */
  readonly stablePrefix?: BlockLocation | undefined;
  /** The end of the tools and the system prompt (the system prompt proper, before any summary). */
  readonly preamble?: BlockLocation | { readonly in: 'tools'; readonly tool: number } | undefined;
  /** The pinned summary. */
  readonly summary?: BlockLocation | undefined;
}

type Marked = { cache_control?: unknown };
const EPHEMERAL = { type: 'ephemeral' } as const;

/** Breakpoints a body carries already: the top-level marker, and markers on tools, system blocks and message blocks. */
export function countBreakpoints(body: MessageCreateParamsNonStreaming): number {
  const marked = (value: unknown) => (typeof value === 'object' && value !== null && (value as Marked).cache_control ? 1 : 0);
  let count = marked(body);
  for (const tool of body.tools ?? []) count += marked(tool);
  if (Array.isArray(body.system)) for (const block of body.system) count += marked(block);
  for (const message of body.messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      count += marked(block);
      if (block.type === 'tool_result' && Array.isArray(block.content)) for (const inner of block.content) count += marked(inner);
    }
  }
  return count;
}

/** A block that may carry `cache_control`: not thinking, not empty text. */
function markable(block: ContentBlockParam | TextBlockParam): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return block.type !== 'text' || block.text !== '';
}

/**
 * The block at `location`, or the nearest markable one before it in the same list, with a key
 * naming its place. A message's string content is one text block. With `forMarking`, the block
 * and its message are copies put in their place in the body (a message kept from the request
 * before is frozen), the string content made that block, since only a block can carry a marker.
 */
function blockAt(
  body: MessageCreateParamsNonStreaming,
  location: BlockLocation,
  forMarking: boolean,
): { readonly block: (ContentBlockParam | TextBlockParam) & Marked; readonly key: string } | undefined {
  let blocks: (ContentBlockParam | TextBlockParam)[];
  if (location.in === 'system') blocks = Array.isArray(body.system) ? body.system : [];
  else {
    const message = body.messages[location.message];
    if (!message) return undefined;
    blocks = blocksIn(message.content);
    // Marked in a copy of the message: a message reused from the request before is frozen.
    if (forMarking) body.messages[location.message] = { ...message, content: (blocks = [...blocks]) } as MessageParam;
  }
  for (let index = Math.min(location.block, blocks.length - 1); index >= 0; index--) {
    const block = blocks[index] as ContentBlockParam | TextBlockParam;
    if (!markable(block)) continue;
    // The block too (`system`'s blocks are the body's own).
    const marked = forMarking && location.in === 'messages' ? (blocks[index] = { ...block }) : block;
    return { block: marked, key: location.in === 'system' ? `system:${index}` : `messages:${location.message}:${index}` };
  }
  return undefined;
}

/** The last block of the request: what the top-level marker marks. */
function lastLocation(body: MessageCreateParamsNonStreaming): BlockLocation | undefined {
  const message = body.messages.at(-1);
  if (!message) return undefined;
  return { in: 'messages', message: body.messages.length - 1, block: typeof message.content === 'string' ? 0 : message.content.length - 1 };
}

/**
 * Marks the stable prefix of a built body with `cache_control` (in place): the top-level marker
 * for the request's end (the prefix the next request reads), then the last block the previous
 * request ended with, the end of the tools and system prompt, and the summary. The markers the
 * caller placed stay and count: the body never carries more than {@link MAX_BREAKPOINTS}.
 * A place already marked takes no second marker.
 */
export function placeBreakpoints(body: MessageCreateParamsNonStreaming, targets: BreakpointTargets): MessageCreateParamsNonStreaming {
  let free = MAX_BREAKPOINTS - countBreakpoints(body);
  if (free <= 0) return body;
  const end = lastLocation(body);
  const endBlock = end && blockAt(body, end, false);
  if (body.cache_control == null && endBlock && !endBlock.block.cache_control) {
    body.cache_control = { ...EPHEMERAL };
    free--;
  }
  // The block the top-level marker lands on takes no marker of its own.
  const topLevelMarks = body.cache_control != null ? endBlock?.key : undefined;
  const mark = (block: Marked | undefined) => {
    if (free <= 0 || !block || block.cache_control) return;
    block.cache_control = { ...EPHEMERAL };
    free--;
  };
  const markAt = (location: BlockLocation | undefined) => {
    const found = location && free > 0 ? blockAt(body, location, false) : undefined;
    if (found && found.key !== topLevelMarks && !found.block.cache_control) mark(blockAt(body, location as BlockLocation, true)?.block);
  };
  markAt(targets.stablePrefix);
  const { preamble } = targets;
  if (preamble?.in === 'tools') mark(body.tools?.[preamble.tool]);
  else markAt(preamble);
  markAt(targets.summary);
  return body;
}
