import { Buffer } from 'node:buffer';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { isUrl } from '../../message/data-url.js';
import { isRecord } from '../../message/is-record.js';
import type { ModelMessage, ProviderOptions, ToolResultOutput } from '../../message/message.js';
import { parseMessage, parseMessages } from '../../message/parse-messages.js';

/**
 * The AI SDK's language-model prompt (what a middleware sees as `params.prompt`), in the two
 * shapes of its specification versions: `v3` (ai 6) and `v4` (ai 7). They differ in how a file's
 * data is held: bytes, base64 or a URL in v3; a `{ type: 'data' | 'url' | … }` object in v4.
 */
export type SpecificationVersion = 'v3' | 'v4';

/** One message of a language-model prompt, loosely typed: both versions fit it. */
export interface PromptMessage {
  readonly role: string;
  readonly content: unknown;
  readonly providerOptions?: unknown;
}

type Part = Record<string, unknown>;

const refuse = (where: string, what: string) =>
  new SlidingContextError('NOT_SUPPORTED', `${where}: ${what} cannot be stored by sliding-context; remove it or store the conversation without the AI SDK middleware.`);

const withOptions = (options: unknown) => (isRecord(options) ? { providerOptions: options as ProviderOptions } : {});

/** Base64 text of file data held as bytes, base64 or text; a URL as its text. */
function dataText(data: unknown, where: string): string {
  if (typeof data === 'string') return data;
  if (data instanceof Uint8Array) return Buffer.from(data).toString('base64');
  if (data instanceof URL) return data.href;
  if (isRecord(data)) {
    if (data.type === 'data') return dataText(data.data, where);
    if (data.type === 'url' && data.url instanceof URL) return data.url.href;
    if (data.type === 'text' && typeof data.text === 'string') return Buffer.from(data.text, 'utf8').toString('base64');
    throw refuse(where, `file data of type '${String(data.type)}' (a provider reference)`);
  }
  throw refuse(where, 'file data that is neither bytes, base64 nor a URL');
}

function fileFrom(part: Part, where: string): Part {
  const mediaType = typeof part.mediaType === 'string' ? part.mediaType : 'application/octet-stream';
  const data = dataText(part.data, where);
  if (mediaType.startsWith('image/')) return { type: 'image', image: data, mediaType, ...withOptions(part.providerOptions) };
  return { type: 'file', data, mediaType, ...(typeof part.filename === 'string' ? { filename: part.filename } : {}), ...withOptions(part.providerOptions) };
}

function outputFrom(output: unknown, where: string): ToolResultOutput {
  if (!isRecord(output)) throw refuse(where, 'a tool result without an output');
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { type: output.type, value: String(output.value) };
    case 'json':
    case 'error-json':
      return { type: output.type, value: output.value };
    case 'execution-denied':
      return { type: 'error-text', value: typeof output.reason === 'string' ? `execution denied: ${output.reason}` : 'execution denied' };
    case 'content': {
      const items = Array.isArray(output.value) ? (output.value as unknown[]) : [];
      return {
        type: 'content',
        value: items.map((item, index) => {
          const at = `${where}.output.value[${index}]`;
          if (!isRecord(item)) throw refuse(at, 'a content item that is not an object');
          if (item.type === 'text') return { type: 'text' as const, text: String(item.text) };
          if ((item.type === 'file-data' || item.type === 'image-data' || item.type === 'file') && typeof item.mediaType === 'string') {
            const data = dataText(item.data, at);
            if (isUrl(data)) throw refuse(at, 'a tool result file given by URL');
            return { type: 'media' as const, data, mediaType: item.mediaType };
          }
          throw refuse(at, `a tool result content item of type '${String(item.type)}'`);
        }),
      };
    }
    default:
      throw refuse(where, `a tool result output of type '${String(output.type)}'`);
  }
}

function partFrom(part: unknown, role: string, where: string): Part {
  if (!isRecord(part)) throw refuse(where, 'a part that is not an object');
  const options = withOptions(part.providerOptions);
  switch (part.type) {
    case 'text':
      return { type: 'text', text: String(part.text), ...options };
    case 'reasoning':
      if (role === 'assistant') return { type: 'reasoning', text: String(part.text), ...options };
      break;
    case 'file':
      return fileFrom(part, where);
    case 'tool-call':
      if (role === 'assistant') {
        return {
          type: 'tool-call', toolCallId: String(part.toolCallId), toolName: String(part.toolName), input: part.input,
          ...(typeof part.providerExecuted === 'boolean' ? { providerExecuted: part.providerExecuted } : {}), ...options,
        };
      }
      break;
    case 'tool-result':
      return { type: 'tool-result', toolCallId: String(part.toolCallId), toolName: String(part.toolName), output: outputFrom(part.output, where), ...options };
    default:
      break;
  }
  throw refuse(where, `a ${role} part of type '${String(part.type)}'`);
}

/** A `custom` part: provider metadata an answer carried (`anthropic.message_start`, …), not content; it is not stored. */
const isCustom = (part: unknown) => isRecord(part) && part.type === 'custom';

/**
 * The neutral message of the prompt's message at `index` (either version), custom parts left out;
 * `undefined` for a message of custom parts alone (provider metadata an answer carried, nothing
 * the model reads).
 * @throws SlidingContextError `NOT_SUPPORTED` naming the message and part that cannot be carried
 * (a provider file reference, a tool approval), `INVALID_MESSAGE` for a malformed one.
 */
export function messageFromPrompt(message: PromptMessage, index: number): ModelMessage | undefined {
  const where = `prompt[${index}]`;
  const options = withOptions(message.providerOptions);
  if (message.role === 'system') return parseMessage({ role: 'system', content: String(message.content), ...options }, where) as ModelMessage;
  if (!Array.isArray(message.content)) throw refuse(where, `a ${message.role} message whose content is not a list of parts`);
  const content = (message.content as unknown[])
    .map((part, partIndex) => (isCustom(part) ? undefined : partFrom(part, message.role, `${where}.content[${partIndex}]`)))
    .filter((part) => part !== undefined);
  if (content.length === 0 && message.content.length > 0) return undefined;
  return parseMessage({ role: message.role, content, ...options }, where) as ModelMessage;
}

/**
 * The neutral messages of a language-model prompt (either version), by {@link messageFromPrompt}.
 * @throws SlidingContextError as {@link messageFromPrompt} does.
 */
export function messagesFromPrompt(prompt: readonly PromptMessage[]): ModelMessage[] {
  return prompt.map(messageFromPrompt).filter((message) => message !== undefined);
}

function fileData(data: string, version: SpecificationVersion): unknown {
  if (isUrl(data)) return version === 'v4' ? { type: 'url', url: new URL(data) } : new URL(data);
  return version === 'v4' ? { type: 'data', data } : data;
}

function partTo(part: Part, version: SpecificationVersion): Part {
  const { providerOptions } = part;
  const options = providerOptions === undefined ? {} : { providerOptions };
  switch (part.type) {
    case 'image':
      return { type: 'file', data: fileData(String(part.image), version), mediaType: typeof part.mediaType === 'string' ? part.mediaType : 'image/*', ...options };
    case 'file':
      return { type: 'file', data: fileData(String(part.data), version), mediaType: part.mediaType, ...(part.filename === undefined ? {} : { filename: part.filename }), ...options };
    case 'tool-result': {
      const output = part.output as ToolResultOutput;
      if (output.type !== 'content') return part;
      const value = output.value.map((item) => {
        if (item.type === 'text') return item;
        return version === 'v4' ? { type: 'file', data: { type: 'data', data: item.data }, mediaType: item.mediaType } : { type: 'file-data', data: item.data, mediaType: item.mediaType };
      });
      return { ...part, output: { type: 'content', value } };
    }
    default:
      return part;
  }
}

/** A language-model prompt of `version` holding the neutral messages (message ids are dropped). */
export function messagesToPrompt(messages: readonly ModelMessage[], version: SpecificationVersion): PromptMessage[] {
  return messages.map((message) => {
    const options = message.providerOptions === undefined ? {} : { providerOptions: message.providerOptions };
    if (message.role === 'system') return { role: 'system', content: message.content, ...options };
    const parts: Part[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    return { role: message.role, content: parts.map((part) => partTo(part, version)), ...options };
  });
}

/** The parts of a model's answer (a generate result's `content`, or the parts a stream carried) as one assistant message. */
export function assistantFromContent(content: readonly unknown[], interrupted = false): ModelMessage | undefined {
  const parts: Part[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    const options = withOptions(part.providerMetadata);
    if ((part.type === 'text' || part.type === 'reasoning') && typeof part.text === 'string' && part.text !== '') {
      parts.push({ type: part.type, text: part.text, ...options });
    } else if (part.type === 'tool-call' && typeof part.toolCallId === 'string' && typeof part.toolName === 'string') {
      parts.push({
        type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: parsedInput(part.input),
        ...(part.providerExecuted === true ? { providerExecuted: true } : {}), ...options,
      });
    }
  }
  if (parts.length === 0) return undefined;
  const message = { role: 'assistant', content: parts, ...(interrupted ? { providerOptions: { 'sliding-context': { interrupted: true } } } : {}) };
  return parseMessages([message])[0] as ModelMessage;
}

/** A generated call's input arrives as JSON text: parsed, or kept as the raw text when it is not JSON. */
function parsedInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input === '' ? '{}' : input) as unknown;
  } catch {
    return input;
  }
}
