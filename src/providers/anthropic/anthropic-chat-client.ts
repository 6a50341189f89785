import type Anthropic from '@anthropic-ai/sdk';
import type { ModelMessage } from '../../message/message.js';
import { assistantOf, isJson } from '../_assistant-of.js';
import type { ChatClient } from '../chat-client.js';
import { convertFromAnthropic } from './convert-from-anthropic.js';

/** The Messages API with `stream: true`. */
export function anthropicClient(client: Pick<Anthropic, 'messages'>): ChatClient {
  return {
    async stream(request, onText, signal) {
      const stream = await client.messages.create({ ...(request as Anthropic.MessageCreateParamsNonStreaming), stream: true }, { signal });
      const blocks: Record<string, unknown>[] = [];
      const json: string[] = [];
      let usage: Record<string, unknown> = {};
      let stopReason: string | undefined;
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            usage = { ...event.message.usage };
            break;
          case 'content_block_start':
            blocks[event.index] = { ...event.content_block };
            json[event.index] = '';
            break;
          case 'content_block_delta': {
            const block = blocks[event.index] ?? {};
            if (event.delta.type === 'text_delta') {
              block.text = `${typeof block.text === 'string' ? block.text : ''}${event.delta.text}`;
              onText(event.delta.text);
            } else if (event.delta.type === 'input_json_delta') json[event.index] = `${json[event.index] ?? ''}${event.delta.partial_json}`;
            else if (event.delta.type === 'thinking_delta') block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${event.delta.thinking}`;
            else if (event.delta.type === 'signature_delta') block.signature = event.delta.signature;
            break;
          }
          case 'content_block_stop': {
            const block = blocks[event.index];
            const partial = json[event.index];
            // Input that is not JSON is kept as its text, for the chat to answer.
            if (block?.type === 'tool_use' && partial) block.input = isJson(partial) ? (JSON.parse(partial) as unknown) : partial;
            break;
          }
          case 'message_delta':
            usage = { ...usage, ...Object.fromEntries(Object.entries(event.usage).filter(([, value]) => value !== null)) };
            stopReason = event.delta.stop_reason ?? undefined;
            break;
          default:
            break;
        }
      }
      const content = blocks.filter(Boolean);
      const messages = convertFromAnthropic({ messages: [{ role: 'assistant', content: content.length > 0 ? content : '' }] }).messages as ModelMessage[];
      return { message: assistantOf(messages), usage, stopReason };
    },
  };
}
