import type { FunctionTool, ResponseCreateParamsNonStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import type { NeutralRequest } from '../_neutral-request.js';
import { toolResultText } from '../_neutral-request.js';

/** Builds an OpenAI Responses request body: `instructions`, `input` items and function tools. */
export function buildOpenAiResponsesRequest(request: NeutralRequest): ResponseCreateParamsNonStreaming & { input: ResponseInputItem[] } {
  const input: ResponseInputItem[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') {
      input.push({ role: 'system', content: message.content });
      continue;
    }
    if (typeof message.content === 'string') {
      input.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: message.content });
      continue;
    }
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          input.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: part.text });
          break;
        case 'image':
          input.push({ role: 'user', content: [{ type: 'input_image', image_url: part.image, detail: 'auto' }] });
          break;
        case 'file':
          input.push({ role: 'user', content: [{ type: 'input_file', file_data: part.data, filename: part.filename ?? 'file' }] });
          break;
        case 'tool-call':
          input.push({ type: 'function_call', call_id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input) });
          break;
        case 'tool-result':
          input.push({ type: 'function_call_output', call_id: part.toolCallId, output: toolResultText(part.output) });
          break;
        case 'reasoning':
          break;
      }
    }
  }
  const tools: FunctionTool[] = (request.tools ?? []).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? null,
    parameters: { ...tool.inputSchema },
    strict: false,
  }));
  return {
    model: request.model,
    input,
    ...(request.system === undefined ? {} : { instructions: request.system }),
    ...(tools.length > 0 ? { tools } : {}),
  };
}
