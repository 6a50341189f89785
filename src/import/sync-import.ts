import { agentSettings } from '../conversation/agent-settings.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { applyEvents } from '../message/apply-events.js';
import { isRecord } from '../message/is-record.js';
import type { Message, ModelMessage, ToolDefinition } from '../message/message.js';
import type { HistoryStore } from '../store/history-store.js';

/** What a body brings to `import --sync`: its messages, and its system prompt and tools if it has them. */
export interface SyncInput {
  readonly messages: readonly Message[];
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
}

/** What `import --sync` appends: the messages the agent does not hold yet, and how many it held. */
export interface SyncPlan {
  readonly newMessages: Message[];
  readonly heldMessages: number;
  /** Every message the agent held, events included, as its history read them. */
  readonly stored: readonly Message[];
}

/** JSON with keys sorted: two messages are the same when these agree, whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Drops `providerOptions` (cache hints and the like, which another format cannot carry) from a value. */
function withoutProviderOptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutProviderOptions);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'providerOptions').map(([key, entry]) => [key, withoutProviderOptions(entry)]));
}

/**
 * A message as formats agree on it, split where formats split it: tool results a user message
 * carries become a `tool` message before the rest (OpenAI Chat sends them so), text content
 * is a list of parts, and provider options are left out. Each comparable item is canonical JSON.
 */
function comparable(message: ModelMessage): string[] {
  const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  const plain = parts.map(withoutProviderOptions);
  if (message.role !== 'user') return [canonical({ role: message.role, content: plain })];
  const results = plain.filter((part) => isRecord(part) && part.type === 'tool-result');
  const rest = plain.filter((part) => !(isRecord(part) && part.type === 'tool-result'));
  return [...(results.length > 0 ? [canonical({ role: 'tool', content: results })] : []), ...(rest.length > 0 ? [canonical({ role: 'user', content: rest })] : [])];
}

/** The comparable items of messages, and for each item the index of the message it came from. */
function comparableList(messages: readonly ModelMessage[]): { items: string[]; origins: number[] } {
  const items: string[] = [];
  const origins: number[] = [];
  messages.forEach((message, index) => {
    for (const item of comparable(message)) {
      items.push(item);
      origins.push(index);
    }
  });
  return { items, origins };
}

/** The leading system messages' text, and the messages after them. */
function splitLeadingSystem(messages: readonly ModelMessage[]): { system: string[]; rest: readonly ModelMessage[] } {
  const lead = messages.findIndex((message) => message.role !== 'system');
  const end = lead === -1 ? messages.length : lead;
  const system = messages.slice(0, end).map((message) => (typeof message.content === 'string' ? message.content : canonical(message.content)));
  return { system, rest: messages.slice(end) };
}

/**
 * Plans `import --sync`: the body is the agent's conversation grown by some turns, so what the
 * agent's model sees must be a prefix of the body's messages, and only the rest is appended.
 * A body of another format works alike: its system prompt and tools must be the agent's (or
 * absent, and the agent's are kept).
 * @throws SlidingContextError `SYNC_DIVERGED` naming the first message index where they differ,
 * or `SYNC_SETTINGS_CHANGED` when the body's system prompt or tools are not the agent's.
 */
export async function planSyncImport(store: HistoryStore, agentId: string, input: SyncInput): Promise<SyncPlan> {
  const [rows, meta] = await Promise.all([store.history(agentId), store.agentMeta(agentId)]);
  const held = splitLeadingSystem(applyEvents(rows.map((entry) => entry.message)));
  const bodyEvents = input.messages.findIndex((message) => message.role === 'event');
  if (bodyEvents !== -1) throw new SlidingContextError('INVALID_REQUEST_BODY', `import --sync: messages[${bodyEvents}] is an event; a body to sync holds only the messages a model is sent.`);
  const body = splitLeadingSystem(input.messages.filter((message): message is ModelMessage => message.role !== 'event'));
  const settings = agentSettings(meta);
  const agentSystem = [...(settings.system === undefined ? [] : [settings.system]), ...held.system].join('\n\n');
  const bodySystem = [...(input.system === undefined ? [] : [input.system]), ...body.system].join('\n\n');
  if (bodySystem !== '' && bodySystem !== agentSystem) {
    throw new SlidingContextError('SYNC_SETTINGS_CHANGED', `import --sync into ${agentId}: the body's system prompt differs from the agent's; fork the agent or import the body as a new agent.`);
  }
  if (input.tools !== undefined && input.tools.length > 0) {
    const names = (tools: readonly ToolDefinition[] | undefined) => canonical((tools ?? []).map((tool) => tool.name).sort());
    if (names(input.tools) !== names(settings.tools)) {
      throw new SlidingContextError('SYNC_SETTINGS_CHANGED', `import --sync into ${agentId}: the body's tools (${input.tools.map((tool) => tool.name).join(', ')}) are not the agent's; fork the agent or import the body as a new agent.`);
    }
  }
  const offset = body.system.length;
  const stored = comparableList(held.rest);
  const sent = comparableList(body.rest);
  const differs = stored.items.findIndex((item, index) => item !== sent.items[index]);
  // The first body message not wholly held: the held items must end on a message boundary.
  const next = sent.origins[stored.items.length] ?? body.rest.length;
  const boundary = stored.items.length === 0 || sent.origins[stored.items.length - 1] !== next;
  if (differs !== -1 || !boundary) {
    const at = differs === -1 ? stored.items.length - 1 : differs;
    const bodyIndex = (sent.origins[at] ?? body.rest.length) + offset;
    const storedIndex = (stored.origins[at] ?? 0) + held.system.length;
    const reason = bodyIndex - offset >= body.rest.length ? `the body ends at ${bodyIndex} messages, before all the agent holds` : `the body's messages[${bodyIndex}] differs from the agent's message ${storedIndex}`;
    throw new SlidingContextError(
      'SYNC_DIVERGED',
      `import --sync into ${agentId}: ${reason} (a ${held.rest[stored.origins[at] ?? 0]?.role ?? 'message'}); the stored history must be a prefix of the body, so nothing was appended.`,
    );
  }
  return { newMessages: body.rest.slice(next), heldMessages: held.rest.length + held.system.length, stored: rows.map((entry) => entry.message) };
}
