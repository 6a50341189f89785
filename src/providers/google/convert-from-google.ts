import { z } from 'zod';
import type {
  FilePart,
  ImagePart,
  Message,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolDefinition,
  ToolResultPart,
} from '../../message/message.js';

import { neutralToolInput } from '../../message/tool-call-input.js';

type NeutralPart = TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart;
import { type ConvertedRequest, conversionError, otherFields, parseBody } from '../conversion.js';
import { GOOGLE_SHAPE_OPTION } from './google-shape-option.js';

const part = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: z.object({ mimeType: z.string(), data: z.string() }).optional(),
  fileData: z.object({ mimeType: z.string().optional(), fileUri: z.string() }).optional(),
  functionCall: z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()).optional() }).optional(),
  functionResponse: z.object({ id: z.string().optional(), name: z.string(), response: z.record(z.string(), z.unknown()).optional() }).optional(),
});
const content = z.object({ role: z.enum(['user', 'model']).optional(), parts: z.array(part) });
const functionDeclarations = z.array(
  z.looseObject({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    parametersJsonSchema: z.record(z.string(), z.unknown()).optional(),
  }),
);
const tools = z.array(z.looseObject({ functionDeclarations: functionDeclarations.optional() }));
const systemInstruction = z.union([z.string(), content.partial({ role: true })]);
const bodySchema = z.looseObject({
  model: z.string().optional(),
  contents: z.array(content),
  systemInstruction: systemInstruction.optional(),
  config: z.looseObject({ systemInstruction: systemInstruction.optional(), tools: tools.optional() }).optional(),
  tools: tools.optional(),
});

function systemText(value: string | { parts?: { text?: string | undefined }[] | undefined } | undefined): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  return (value.parts ?? []).map((item) => item.text ?? '').join('\n');
}

/** Top-level fields only a REST `generateContent` body has (the SDK puts them in `config`). */
const REST_FIELDS = ['systemInstruction', 'tools', 'generationConfig', 'safetySettings', 'toolConfig', 'cachedContent'];

/**
 * True for the REST shape: no `config`, and a REST-only field or no `model` (the SDK's
 * parameters always name the model; a REST body is posted to the model's URL).
 */
function isRestShaped(parsed: Readonly<Record<string, unknown>>): boolean {
  return parsed.config === undefined && (parsed.model === undefined || REST_FIELDS.some((field) => parsed[field] !== undefined));
}

/**
 * Takes a Gemini body apart (REST `generateContent` with top-level `systemInstruction` and
 * `tools`, or the SDK's `{ model, contents, config }`). Function calls without an id get one,
 * `call_<content>_<part>`, flagged `providerOptions.google.inventedId` so that it is not sent;
 * each function response pairs with its call by id, else by name. Thought signatures travel in
 * `providerOptions.google`. A REST body is flagged in `options` (see {@link GOOGLE_SHAPE_OPTION}),
 * so that it is rebuilt as REST.
 * @throws SlidingContextError naming the field of a function response with no matching call.
 */
export function convertFromGoogle(body: unknown): ConvertedRequest {
  const parsed = parseBody(bodySchema, body, 'Gemini');
  const rest = isRestShaped(parsed);
  const pending: { id: string; name: string; given: boolean }[] = [];
  const messages: Message[] = parsed.contents.map((entry, index): Message => {
    const parts = entry.parts.map((item, partIndex): NeutralPart => {
      const at = `contents[${index}].parts[${partIndex}]`;
      const signature = item.thoughtSignature ? { providerOptions: { google: { thoughtSignature: item.thoughtSignature } } } : {};
      if (item.functionCall) {
        const id = item.functionCall.id ?? `call_${index}_${partIndex}`;
        pending.push({ id, name: item.functionCall.name, given: item.functionCall.id !== undefined });
        const google = { ...signature.providerOptions?.google, ...(item.functionCall.id === undefined ? { inventedId: true } : {}) };
        const options = Object.keys(google).length > 0 ? { providerOptions: { google } } : {};
        return { type: 'tool-call' as const, toolCallId: id, toolName: item.functionCall.name, input: neutralToolInput(item.functionCall.args ?? {}), ...options };
      }
      if (item.functionResponse) {
        const response = item.functionResponse;
        // By id, the nearest open call of that id; by name, the oldest (parallel calls answer in order).
        const match = response.id ? pending.findLastIndex((call) => call.id === response.id) : pending.findIndex((call) => call.name === response.name);
        const call = pending[match];
        if (!call) throw conversionError(`${at}.functionResponse`, `no earlier functionCall ${response.id ? `has the id "${response.id}"` : `named "${response.name}" is unanswered`}`, 'ORPHANED_TOOL_RESULT');
        pending.splice(match, 1);
        const output = response.response ?? {};
        const value = typeof output.output === 'string' && Object.keys(output).length === 1 ? output.output : undefined;
        return {
          type: 'tool-result' as const,
          toolCallId: call.id,
          toolName: response.name,
          output: value === undefined ? { type: 'json' as const, value: output } : { type: 'text' as const, value },
        };
      }
      if (item.inlineData?.mimeType.startsWith('image/')) return { type: 'image' as const, image: item.inlineData.data, mediaType: item.inlineData.mimeType, ...signature };
      if (item.inlineData) return { type: 'file' as const, data: item.inlineData.data, mediaType: item.inlineData.mimeType, ...signature };
      if (item.fileData) return { type: 'file' as const, data: item.fileData.fileUri, mediaType: item.fileData.mimeType ?? 'application/octet-stream', ...signature };
      if (item.thought) return { type: 'reasoning' as const, text: item.text ?? '', ...signature };
      return { type: 'text' as const, text: item.text ?? '', ...signature };
    });
    if (entry.role === 'model') {
      return { role: 'assistant', content: parts.filter((item): item is TextPart | FilePart | ReasoningPart | ToolCallPart => item.type !== 'tool-result' && item.type !== 'image') };
    }
    const results = parts.filter((item): item is ToolResultPart => item.type === 'tool-result');
    if (results.length === parts.length && results.length > 0) return { role: 'tool', content: results };
    return { role: 'user', content: parts.filter((item): item is TextPart | ImagePart | FilePart | ToolResultPart => item.type !== 'tool-call' && item.type !== 'reasoning') };
  });
  const declarations = [...(parsed.tools ?? []), ...(parsed.config?.tools ?? [])].flatMap((tool) => tool.functionDeclarations ?? []);
  const definitions: ToolDefinition[] = declarations.map((declaration) => {
    // Each shape has its usual schema field (REST `parameters`, the SDK `parametersJsonSchema`); the other one is remembered.
    const schemaField = declaration.parametersJsonSchema ? 'parametersJsonSchema' : declaration.parameters ? 'parameters' : undefined;
    const unusual = schemaField !== undefined && schemaField !== (rest ? 'parameters' : 'parametersJsonSchema');
    return {
      name: declaration.name,
      ...(declaration.description === undefined ? {} : { description: declaration.description }),
      inputSchema: declaration.parametersJsonSchema ?? declaration.parameters ?? { type: 'object', properties: {} },
      ...(unusual ? { providerOptions: { google: { schemaField } } } : {}),
    };
  });
  const system = systemText(parsed.systemInstruction) ?? systemText(parsed.config?.systemInstruction);
  const { systemInstruction: _system, tools: _tools, ...config } = parsed.config ?? {};
  return {
    ...(system === undefined ? {} : { system }),
    messages,
    ...(definitions.length > 0 ? { tools: definitions } : {}),
    options: {
      ...otherFields(parsed, ['contents', 'systemInstruction', 'tools', 'config']),
      ...(Object.keys(config).length > 0 ? { config } : {}),
      ...(rest ? { [GOOGLE_SHAPE_OPTION]: 'rest' } : {}),
    },
  };
}
