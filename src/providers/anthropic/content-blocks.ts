import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';

/** A Messages API message's content as blocks: a string is one text block. */
export function blocksIn(content: MessageParam['content']): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
