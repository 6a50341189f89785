import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseInputMessageContentList,
  Tool,
} from 'openai/resources/responses/responses';
import type { ModelMessage } from '../../../message/message.js';
import { toolOutputText } from '../../../message/tool-output-text.js';
import type { NeutralRequest } from '../../_neutral-request.js';
import { providerOption, providerString } from '../../_provider-option.js';
import { argumentsText } from '../../conversion.js';
import { convertEach, type ConvertedMessages } from '../../converted-messages.js';
import { type PromptCacheHints, withPromptCacheKey } from '../../prompt-cache-hints.js';

type UserParts = Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string>;

/** A user turn: its tool results as outputs, then one message with its text, images and files. */
function userItems(parts: UserParts): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  const content: ResponseInputMessageContentList = [];
  for (const part of parts) {
    if (part.type === 'tool-result') items.push({ type: 'function_call_output', call_id: part.toolCallId, output: toolOutputText(part.output) });
    if (part.type === 'text') content.push({ type: 'input_text', text: part.text });
    if (part.type === 'image') {
      const detail = providerString(part.providerOptions, 'openai', 'imageDetail');
      content.push({ type: 'input_image', image_url: part.image, detail: detail === 'low' || detail === 'high' ? detail : 'auto' });
    }
    if (part.type === 'file') content.push({ type: 'input_file', file_data: part.data, ...(part.filename ? { filename: part.filename } : {}) });
  }
  return content.length > 0 ? [...items, { role: 'user', content }] : items;
}

function itemsOf(message: ModelMessage): ResponseInputItem[] {
  if (message.role === 'system') {
    // A system message sent in another role: a developer message, or context a client sent as a user message.
    const role = providerString(message.providerOptions, 'openai', 'role');
    return [{ role: role === 'developer' || role === 'user' ? role : 'system', content: message.content }];
  }
  if (typeof message.content === 'string') return [{ role: message.role === 'assistant' ? 'assistant' : 'user', content: message.content }];
  if (message.role === 'user') return userItems(message.content);
  const items: ResponseInputItem[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        items.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: part.text });
        break;
      case 'reasoning': {
        const id = providerString(part.providerOptions, 'openai', 'itemId');
        // Reasoning that did not come from the Responses API has no item id to send back.
        if (!id) break;
        const encrypted = providerString(part.providerOptions, 'openai', 'encryptedContent');
        items.push({
          type: 'reasoning',
          id,
          summary: part.text ? [{ type: 'summary_text', text: part.text }] : [],
          ...(encrypted ? { encrypted_content: encrypted } : {}),
        });
        break;
      }
      case 'tool-call': {
        const id = providerString(part.providerOptions, 'openai', 'itemId');
        items.push({ type: 'function_call', call_id: part.toolCallId, name: part.toolName, arguments: argumentsText(part), ...(id ? { id } : {}) });
        break;
      }
      case 'tool-result':
        items.push({ type: 'function_call_output', call_id: part.toolCallId, output: toolOutputText(part.output) });
        break;
    }
  }
  return items;
}

/**
 * Builds an OpenAI Responses body: `instructions`, one input item per message part (messages,
 * reasoning with its encrypted content, function calls and their outputs) and function tools.
 * With `cache` hints the body carries `prompt_cache_key` (unless its options set one).
 */
export function buildOpenAiResponsesRequest(
  request: NeutralRequest & {
    readonly options?: Readonly<Record<string, unknown>> | undefined;
    readonly cache?: PromptCacheHints | undefined;
    readonly converted?: ConvertedMessages | undefined;
  },
): ResponseCreateParamsNonStreaming & { input: ResponseInputItem[] } {
  const { otherTools, ...options } = withPromptCacheKey(request.options ?? {}, request.cache);
  const input = convertEach(request.messages, itemsOf, request.converted);
  const tools: FunctionTool[] = (request.tools ?? []).map((tool) => {
    const strict = providerOption(tool.providerOptions, 'openai', 'strict');
    return {
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: { ...tool.inputSchema },
      strict: typeof strict === 'boolean' ? strict : null,
    };
  });
  const allTools: Tool[] = [...tools, ...(Array.isArray(otherTools) ? (otherTools as Tool[]) : [])];
  return {
    ...options,
    model: request.model,
    input,
    ...(request.system === undefined ? {} : { instructions: request.system }),
    ...(allTools.length > 0 ? { tools: allTools } : {}),
  };
}
