/**
 * The seed's Roo Code algorithm, written from its analysis: the conversation in Anthropic's
 * shape (tool results in user messages, so roles alternate), checked before each request as the
 * last reported usage plus a tiktoken estimate of the newest message; over the allowed tokens,
 * keep the first message and remove half of the rest, rounded down to an even count.
 */
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { ModelMessage } from '../../src/message/message.js';
import { type KeeperContext, outputText, textOf, type WindowKeeper } from './window-keeper.js';

function toAnthropic(message: ModelMessage): MessageParam {
  if (message.role === 'tool') {
    return { role: 'user', content: message.content.map((part) => ({ type: 'tool_result' as const, tool_use_id: part.toolCallId, content: outputText(part.output) })) };
  }
  if (message.role === 'assistant' && typeof message.content !== 'string') {
    return {
      role: 'assistant',
      content: message.content.flatMap((part): ContentBlockParam[] => {
        if (part.type === 'text') return [{ type: 'text', text: part.text }];
        if (part.type === 'tool-call') return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input }];
        return [];
      }),
    };
  }
  return { role: message.role === 'assistant' ? 'assistant' : 'user', content: textOf(message) };
}

/** Roo's `truncateConversation`: the first message, then the rest less an even share from the front. */
function truncateConversation<Message>(messages: readonly Message[], fracToRemove: number): Message[] {
  const raw = Math.floor((messages.length - 1) * fracToRemove);
  const remove = raw - (raw % 2);
  return [messages[0] as Message, ...messages.slice(remove + 1)];
}

export function rooBaselineKeeper(context: KeeperContext): WindowKeeper {
  const { provider, model, system, tools, counter, tiktoken, budgetTokens } = context;
  const target = { provider, model };
  const preamble = counter.countPreamble({ ...target, system, tools }).tokens;
  let conversation: MessageParam[] = [];
  const neutral = new Map<MessageParam, ModelMessage>();
  const tokens = new Map<MessageParam, number>();
  // What the provider reported for the last request: stands in for Roo's `totalTokens`.
  let reported = 0;
  // Tokens of the conversation as it stands, kept as messages come and go.
  let conversationTokens = preamble;
  const add = (message: ModelMessage) => {
    const converted = toAnthropic(message);
    const count = counter.countMessage({ ...target, message }).tokens;
    neutral.set(converted, message);
    tokens.set(converted, count);
    conversation.push(converted);
    conversationTokens += count;
  };
  /** Roo's estimate of the newest message: tiktoken over its content. */
  const estimateLast = () => {
    const last = conversation.at(-1);
    return last === undefined ? 0 : tiktoken.encode(typeof last.content === 'string' ? last.content : JSON.stringify(last.content)).length;
  };
  /** Roo's check before a request: over the allowed tokens, half goes. */
  const truncateIfOver = (requestTokens: number) => {
    if (requestTokens <= budgetTokens) return;
    conversation = truncateConversation(conversation, 0.5);
    conversationTokens = conversation.reduce((sum, message) => sum + (tokens.get(message) ?? 0), preamble);
  };
  return {
    name: 'Roo Code baseline (half, even count)',
    setUp(history) {
      // Roo's state after the history: its check run as each message came. Setting up is not
      // timed, so the message's exact count stands in for the tiktoken estimate here.
      for (const message of history) {
        add(message);
        truncateIfOver(conversationTokens);
      }
      return Promise.resolve();
    },
    beforeTurn(turn) {
      reported = conversationTokens + turn.slice(0, -1).reduce((sum, message) => sum + counter.countMessage({ ...target, message }).tokens, 0);
    },
    turn(turn) {
      for (const message of turn) add(message);
      truncateIfOver(reported + estimateLast());
      return Promise.resolve();
    },
    lastWindow: () => conversation.flatMap((message) => neutral.get(message) ?? []),
    close: () => Promise.resolve(),
  };
}
