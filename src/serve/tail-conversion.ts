import { frozenMessageCopy } from '../conversation/same-message-content.js';
import { isRecord } from '../message/is-record.js';
import { isModelMessage, type Message } from '../message/message.js';
import { sameJsonValue } from '../message/same-json-value.js';
import type { ConvertedRequest } from '../providers/conversion.js';
import { convertFrom } from '../providers/wire-format.js';
import type { WindowedEndpoint } from './proxy-endpoints.js';

type Format = WindowedEndpoint['format'];

/** The field of a body that holds its conversation. */
const CONVERSATION_FIELD: Readonly<Record<Format, string>> = { 'openai-chat': 'messages', 'anthropic': 'messages', 'openai-responses': 'input' };

/** An earlier body's conversation, as it came and as it was converted. */
interface Converted {
  readonly format: Format;
  readonly wire: readonly unknown[];
  readonly messages: readonly Message[];
}

/** How many earlier conversions are kept: one per conversation in use, the least recently used dropped first. */
const KEPT_CONVERSIONS = 256;

const roleOf = (entry: unknown) => (isRecord(entry) ? entry.role : undefined);

/** True when `wire` starts with every message of `earlier`, equal as JSON values (the last one compared first). */
function startsWith(wire: readonly unknown[], earlier: readonly unknown[]): boolean {
  const last = earlier.length - 1;
  if (!sameJsonValue(wire[last], earlier[last])) return false;
  for (let index = 0; index < last; index++) if (!sameJsonValue(wire[index], earlier[index])) return false;
  return true;
}

/** Messages as a conversation keeps them: each model message a frozen copy, which the registry keeps as it is and compares at once. */
function frozen(messages: readonly Message[]): Message[] {
  return messages.map((message) => (isModelMessage(message) ? frozenMessageCopy(message) : message));
}

/**
 * Whether the earlier messages' conversion followed by the tail's is the whole body's conversion.
 * Chat Completions converts message by message. Anthropic also moves the system messages that
 * follow the first user message before it: that is settled once a later message is known, and the
 * tail must not start a move of its own. Responses merges consecutive assistant-side items, and
 * consecutive outputs, into one message: the tail must not start with what the earlier messages end with.
 */
function joinsCleanly(format: Format, earlier: Converted, tailWire: readonly unknown[], tail: readonly Message[]): boolean {
  if (format === 'anthropic') {
    const settled = earlier.wire.slice(1).some((entry) => roleOf(entry) !== 'system');
    return settled && !(roleOf(tailWire[0]) === 'user' && roleOf(tailWire[1]) === 'system');
  }
  if (format === 'openai-responses') {
    const [last, first] = [earlier.messages.at(-1)?.role, tail[0]?.role];
    return !(last === first && (last === 'assistant' || last === 'tool'));
  }
  return true;
}

/** A whole body's conversion, its messages frozen copies. */
function whole(format: Format, body: Readonly<Record<string, unknown>>): ConvertedRequest {
  const converted = convertFrom(format, body);
  return { ...converted, messages: frozen(converted.messages) };
}

/**
 * Converts request bodies to the neutral model, each reusing the conversion of the longest earlier
 * body whose messages it starts with, unchanged: a turn of a long conversation converts (and
 * checks) only the messages its client added since the last turn, as the integrations store only
 * what is new. The result is always the whole body's own conversion: a tail that needs the earlier
 * messages (a tool result whose call came before it), that fails, or that would join them
 * otherwise than message by message is converted with the whole body, whose errors name the place
 * in the whole body.
 */
export class TailConversion {
  /** Least recently used first. */
  readonly #kept = new Set<Converted>();

  /** `convertFrom(format, body)`, converting only what no earlier body held. */
  convert(format: Format, body: Readonly<Record<string, unknown>>): ConvertedRequest {
    const field = CONVERSATION_FIELD[format];
    const wire = body[field];
    if (!Array.isArray(wire)) return whole(format, body);
    const earlier = this.#longestStart(format, wire);
    const converted = (earlier === undefined ? undefined : this.#convertTail(format, body, field, earlier, wire)) ?? whole(format, body);
    // The conversation's entry moves on to this body.
    if (earlier !== undefined) this.#kept.delete(earlier);
    this.#kept.add({ format, wire, messages: converted.messages });
    const [oldest] = this.#kept;
    if (this.#kept.size > KEPT_CONVERSIONS && oldest !== undefined) this.#kept.delete(oldest);
    return converted;
  }

  #longestStart(format: Format, wire: readonly unknown[]): Converted | undefined {
    let longest: Converted | undefined;
    for (const kept of this.#kept) {
      const { length } = kept.wire;
      if (kept.format !== format || length === 0 || length > wire.length || length <= (longest?.wire.length ?? 0)) continue;
      if (startsWith(wire, kept.wire)) longest = kept;
    }
    return longest;
  }

  #convertTail(
    format: Format,
    body: Readonly<Record<string, unknown>>,
    field: string,
    earlier: Converted,
    wire: readonly unknown[],
  ): ConvertedRequest | undefined {
    const tailWire = wire.slice(earlier.wire.length);
    let tail: ConvertedRequest;
    try {
      tail = convertFrom(format, { ...body, [field]: tailWire });
    } catch {
      return undefined;
    }
    if (!joinsCleanly(format, earlier, tailWire, tail.messages)) return undefined;
    return { ...tail, messages: [...earlier.messages, ...frozen(tail.messages)] };
  }
}
