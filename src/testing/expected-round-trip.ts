import type { AssistantMessage, ModelMessage, ToolDefinition, UserMessage } from '../message/message.js';
import type { WireFormat } from '../providers/wire-format.js';

/** A neutral request as the round-trip tests compare it. */
export interface NeutralContent {
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly messages: readonly ModelMessage[];
}

type Parts = Exclude<UserMessage['content'] | AssistantMessage['content'], string>;
const asParts = (message: ModelMessage): Parts =>
  message.role === 'system' ? [{ type: 'text', text: message.content }] : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;

function mergeSameRole(messages: readonly ModelMessage[]): ModelMessage[] {
  const merged: ModelMessage[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (previous && previous.role === message.role && previous.role !== 'system') {
      merged[merged.length - 1] = { ...previous, content: [...asParts(previous), ...asParts(message)] } as ModelMessage;
    } else merged.push(message);
  }
  return merged;
}

function withoutReasoning(messages: readonly ModelMessage[]): ModelMessage[] {
  return messages.map((message) =>
    message.role === 'assistant' && typeof message.content !== 'string' ? { ...message, content: message.content.filter((part) => part.type !== 'reasoning') } : message,
  );
}

function systemsJoined(content: NeutralContent) {
  const texts = [content.system, ...content.messages.filter((message) => message.role === 'system').map((message) => message.content)].filter(
    (text): text is string => text !== undefined,
  );
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

/** User turns that carry tool results become a tool message and what remains of the user turn. */
function splitUserResults(messages: readonly ModelMessage[], onePerResult: boolean): ModelMessage[] {
  return messages.flatMap((message): ModelMessage[] => {
    if (message.role !== 'user' || typeof message.content === 'string') return [message];
    const results = message.content.filter((part) => part.type === 'tool-result');
    if (results.length === 0) return [message];
    const rest = message.content.filter((part) => part.type !== 'tool-result');
    const tools: ModelMessage[] = onePerResult ? results.map((result) => ({ role: 'tool', content: [result] })) : [{ role: 'tool', content: results }];
    return rest.length > 0 ? [...tools, { ...message, content: rest }] : tools;
  });
}

/**
 * What a neutral request looks like after a trip out to `format` and back: the documented lossy
 * fields of each format, spelled out. Everything not changed here must survive unchanged.
 */
export function expectedRoundTrip(format: WireFormat, content: NeutralContent): NeutralContent {
  const tools = content.tools && content.tools.length > 0 ? content.tools : undefined;
  switch (format) {
    case 'neutral':
    case 'ai-sdk':
      return { system: content.system, tools, messages: [...content.messages] };
    case 'openai-chat': {
      // The system prompt is a message; reasoning is not sent; one tool message per result.
      const messages: ModelMessage[] = [...(content.system === undefined ? [] : [{ role: 'system' as const, content: content.system }]), ...withoutReasoning(content.messages)];
      return {
        system: undefined,
        tools,
        messages: splitUserResults(messages, true).flatMap((message): ModelMessage[] =>
          message.role === 'tool' ? message.content.map((result): ModelMessage => ({ role: 'tool', content: [result] })) : [message],
        ),
      };
    }
    case 'openai-responses': {
      // Reasoning without an item id is not sent; assistant text is a list of parts; consecutive
      // assistant items form one turn and consecutive outputs one tool message.
      const messages = splitUserResults(withoutReasoning(content.messages), false)
        .map((message): ModelMessage => (message.role === 'assistant' && typeof message.content === 'string' ? { role: 'assistant', content: [{ type: 'text', text: message.content }] } : message))
        .filter((message) => !(message.role === 'assistant' && Array.isArray(message.content) && message.content.length === 0));
      const merged: ModelMessage[] = [];
      for (const message of messages) {
        const previous = merged.at(-1);
        if (previous && (previous.role === 'assistant' || previous.role === 'tool') && previous.role === message.role) {
          merged[merged.length - 1] = { ...previous, content: [...asParts(previous), ...asParts(message)] } as ModelMessage;
        } else merged.push(message);
      }
      return { system: content.system, tools, messages: merged };
    }
    case 'anthropic': {
      // System prompt and system messages join in `system`; tool results travel in user turns;
      // turns of one role merge; reasoning without a signature is not sent.
      const messages = withoutReasoning(content.messages.filter((message) => message.role !== 'system')).map((message): ModelMessage =>
        message.role === 'tool' ? { role: 'user', content: message.content } : message,
      );
      return { system: systemsJoined(content), tools, messages: mergeSameRole(messages) };
    }
    case 'google': {
      // As Anthropic for system text and merged turns; text is always a list of parts; a user
      // turn made only of function responses reads back as a tool message.
      const messages = mergeSameRole(
        content.messages
          .filter((message) => message.role !== 'system')
          .map((message): ModelMessage => (message.role === 'tool' ? { role: 'user', content: message.content } : message)),
      ).map((message): ModelMessage => {
        if (message.role === 'system') return message;
        const parts = asParts(message);
        const results = parts.filter((part) => part.type === 'tool-result');
        if (message.role === 'user' && parts.length > 0 && results.length === parts.length) return { role: 'tool', content: results };
        return { ...message, content: parts } as ModelMessage;
      });
      return { system: systemsJoined(content), tools, messages };
    }
  }
}
