import type { Message, ToolDefinition } from '../message/message.js';
import { parseJsonText } from '../message/parse-json-text.js';
import type { TranscriptFormat } from '../sources/transcript.js';
import { convertFrom, detectFormat, type WireFormat } from '../providers/wire-format.js';
import { DEFAULT_PROVIDER, defaultModelFor } from '../tokens/default-target.js';

/** A conversation read from a provider body or message array, with the format it came in. */
export interface ConversationInput {
  readonly format: WireFormat;
  /** True when the format was detected rather than given. */
  readonly detected: boolean;
  readonly system?: string | undefined;
  readonly tools?: ToolDefinition[] | undefined;
  readonly messages: Message[];
  /** The body's other fields, restored when the body is rebuilt. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The agent transcript the conversation was read from, when it was one (`format` is then its wire format). */
  readonly transcript?: TranscriptFormat | undefined;
}

/** The byte order mark some editors put at the start of a UTF-8 file; JSON does not allow it. */
const BYTE_ORDER_MARK = '\uFEFF';

/** The text without a leading byte order mark. */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
}

/**
 * True for JSON lines: two or more lines, the first a whole JSON object. One JSON document spread
 * over lines never starts with a complete one, so the whole text is not parsed twice to tell.
 */
export function isJsonLines(text: string): boolean {
  const start = text.trimStart();
  const end = start.indexOf('\n');
  if (end === -1 || start.slice(end).trim() === '') return false;
  try {
    const first: unknown = JSON.parse(start.slice(0, end));
    return typeof first === 'object' && first !== null && !Array.isArray(first);
  } catch {
    return false;
  }
}

/**
 * A parsed body as a conversation in `format` (detected when `auto`): a neutral message array or
 * `{ system?, tools?, messages }`, or a provider request body.
 * @throws SlidingContextError `UNKNOWN_FORMAT`, `INVALID_REQUEST_BODY` or `INVALID_MESSAGE`, naming what and where
 */
export function parseConversationBody(body: unknown, format: WireFormat | 'auto' = 'auto'): ConversationInput {
  const chosen = format === 'auto' ? detectFormat(body) : format;
  return { format: chosen, detected: format === 'auto', ...convertFrom(chosen, body) };
}

/**
 * Parses JSON text as a conversation in `format` (detected when `auto`), as {@link parseConversationBody}.
 * @throws SlidingContextError `INVALID_JSON`, `UNKNOWN_FORMAT`, `INVALID_REQUEST_BODY` or `INVALID_MESSAGE`, naming what and where;
 * `INPUT_NOT_TEXT` or `INPUT_TOO_DEEP` before anything walks the value.
 */
export function parseConversationInput(text: string, sourceName: string, format: WireFormat | 'auto' = 'auto'): ConversationInput {
  return parseConversationBody(parseJsonText(text, sourceName), format);
}

/** The provider whose API a wire format is, if one. */
export const providerOfFormat: Readonly<Record<WireFormat, string | undefined>> = {
  'neutral': undefined,
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'anthropic': 'anthropic',
  'google': 'google',
  'ai-sdk': undefined,
};

/**
 * The provider and model to count for: the ones given, else what the body says (its format and
 * `model`; an AI SDK `provider/model` id is split), else the default provider and model.
 */
export function resolveTarget(input: Pick<ConversationInput, 'format' | 'options'>, given: { provider?: string | undefined; model?: string | undefined }) {
  const bodyModel = typeof input.options.model === 'string' ? input.options.model : undefined;
  const [gatewayProvider, gatewayModel] = bodyModel?.includes('/') ? bodyModel.split('/', 2) : [undefined, bodyModel];
  const provider = given.provider ?? providerOfFormat[input.format] ?? gatewayProvider ?? DEFAULT_PROVIDER;
  return { provider, model: given.model ?? gatewayModel ?? defaultModelFor(provider) };
}
