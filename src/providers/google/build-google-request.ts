import type { Content, GenerateContentParameters, Part, Tool } from '@google/genai';
import { isUrl, splitDataUrl } from '../../message/data-url.js';
import type { ModelMessage } from '../../message/message.js';
import { objectToolInput } from '../../message/tool-call-input.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import type { NeutralRequest } from '../_neutral-request.js';
import { providerString } from '../_provider-option.js';

function partsOf(message: ModelMessage): Part[] {
  if (typeof message.content === 'string') return [{ text: message.content }];
  const parts: Part[] = [];
  for (const part of message.content) {
    const thoughtSignature = providerString(part.providerOptions, 'google', 'thoughtSignature');
    const signature = thoughtSignature === undefined ? {} : { thoughtSignature };
    switch (part.type) {
      case 'text':
        parts.push({ text: part.text, ...signature });
        break;
      case 'reasoning':
        parts.push({ text: part.text, thought: true, ...signature });
        break;
      case 'image':
      case 'file': {
        const value = part.type === 'image' ? part.image : part.data;
        const mediaType = part.mediaType ?? 'image/png';
        if (isUrl(value)) {
          parts.push({ fileData: { fileUri: value, mimeType: mediaType }, ...signature });
        } else {
          const inline = splitDataUrl(value, mediaType);
          parts.push({ inlineData: { data: inline.data, mimeType: inline.mediaType }, ...signature });
        }
        break;
      }
      case 'tool-call': {
        // Raw argument text that is not JSON goes as `{ _raw_arguments: text }`: args must be an object.
        const input = objectToolInput(part.input);
        parts.push({
          functionCall: { id: part.toolCallId, name: part.toolName, args: typeof input === 'object' && input !== null ? { ...input } : {} },
          ...signature,
        });
        break;
      }
      case 'tool-result': {
        const { output } = part;
        const response: Record<string, unknown> =
          output.type === 'json' && typeof output.value === 'object' && output.value !== null && !Array.isArray(output.value)
            ? { ...output.value }
            : { output: toolOutputText(output) };
        parts.push({
          // A plain object is what the SDK serializes; its class adds nothing on the wire.
          // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
          functionResponse: { id: part.toolCallId, name: part.toolName, response },
        });
        break;
      }
    }
  }
  return parts;
}

/**
 * Builds a Gemini `generateContent` request: `systemInstruction`, `contents` (tool results as
 * user `functionResponse` parts, consecutive turns of one role merged) and function declarations.
 */
export function buildGoogleRequest(
  request: NeutralRequest & { readonly options?: Readonly<Record<string, unknown>> | undefined },
): GenerateContentParameters & { contents: Content[]; config: { systemInstruction?: string; tools?: Tool[] } } {
  const { config: extraConfig, ...options } = request.options ?? {};
  const system = [request.system, ...request.messages.filter((message) => message.role === 'system').map((message) => message.content)]
    .filter((text): text is string => text !== undefined)
    .join('\n\n');
  const contents: Content[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts = [...(previous.parts ?? []), ...partsOf(message)];
    else contents.push({ role, parts: partsOf(message) });
  }
  const functionDeclarations = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parametersJsonSchema: tool.inputSchema,
  }));
  return {
    ...options,
    model: request.model,
    contents,
    config: {
      ...(typeof extraConfig === 'object' && extraConfig !== null ? extraConfig : {}),
      ...(system ? { systemInstruction: system } : {}),
      ...(functionDeclarations.length > 0 ? { tools: [{ functionDeclarations }] } : {}),
    },
  };
}
