import type { Content, GenerateContentParameters, Part, Tool } from '@google/genai';
import { isUrl, splitDataUrl } from '../../message/data-url.js';
import type { ModelMessage } from '../../message/message.js';
import { objectToolInput } from '../../message/tool-call-input.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import type { NeutralRequest } from '../_neutral-request.js';
import { providerString } from '../_provider-option.js';
import { GOOGLE_SHAPE_OPTION } from './google-shape-option.js';

/** Ids of the calls whose id the converter made up (a Gemini call without one): they are not sent. */
function inventedIds(messages: readonly ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && part.providerOptions?.google?.inventedId === true) ids.add(part.toolCallId);
    }
  }
  return ids;
}

function partsOf(message: ModelMessage, invented: ReadonlySet<string>): Part[] {
  if (typeof message.content === 'string') return [{ text: message.content }];
  const parts: Part[] = [];
  for (const part of message.content) {
    const thoughtSignature = providerString(part.providerOptions, 'google', 'thoughtSignature');
    const id = (toolCallId: string) => (invented.has(toolCallId) ? {} : { id: toolCallId });
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
          functionCall: { ...id(part.toolCallId), name: part.toolName, args: typeof input === 'object' && input !== null ? { ...input } : {} },
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
          functionResponse: { ...id(part.toolCallId), name: part.toolName, response },
        });
        break;
      }
    }
  }
  return parts;
}

/** A Gemini REST `generateContent` body: the system instruction, tools and generation config at the top level. */
export interface GoogleRestRequest {
  readonly [field: string]: unknown;
  readonly contents: Content[];
  readonly systemInstruction?: Content;
  readonly tools?: Tool[];
}

/** The SDK's `generateContent` parameters, as {@link buildGoogleRequest} builds them. */
export type GoogleSdkRequest = GenerateContentParameters & { contents: Content[]; config: { systemInstruction?: string; tools?: Tool[] } };

/**
 * Builds a Gemini `generateContent` request: the system instruction, `contents` (tool results as
 * user `functionResponse` parts, consecutive turns of one role merged) and function declarations.
 * In the SDK's shape (`{ model, contents, config }`), unless the options say the body came as REST
 * (see `GOOGLE_SHAPE_OPTION`): then `systemInstruction`, `tools` and the body's other fields
 * (`generationConfig`, …) are top-level, and `model` is sent only if the body had it.
 */
export function buildGoogleRequest(
  request: NeutralRequest & { readonly options?: Readonly<Record<string, unknown>> | undefined },
): GoogleSdkRequest | GoogleRestRequest {
  const { config: extraConfig, [GOOGLE_SHAPE_OPTION]: shape, ...options } = request.options ?? {};
  const rest = shape === 'rest';
  const system = [request.system, ...request.messages.filter((message) => message.role === 'system').map((message) => message.content)]
    .filter((text): text is string => text !== undefined)
    .join('\n\n');
  const invented = inventedIds(request.messages);
  const contents: Content[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts = [...(previous.parts ?? []), ...partsOf(message, invented)];
    else contents.push({ role, parts: partsOf(message, invented) });
  }
  const functionDeclarations = (request.tools ?? []).map((tool) => {
    const given = providerString(tool.providerOptions, 'google', 'schemaField');
    const schemaField = given === 'parameters' || given === 'parametersJsonSchema' ? given : rest ? 'parameters' : 'parametersJsonSchema';
    return {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      [schemaField]: tool.inputSchema,
    };
  });
  const tools = functionDeclarations.length > 0 ? [{ functionDeclarations }] : undefined;
  if (rest) {
    return {
      ...options,
      contents,
      ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
      ...(tools ? { tools } : {}),
    };
  }
  return {
    ...options,
    model: request.model,
    contents,
    config: {
      ...(typeof extraConfig === 'object' && extraConfig !== null ? extraConfig : {}),
      ...(system ? { systemInstruction: system } : {}),
      ...(tools ? { tools } : {}),
    },
  };
}
