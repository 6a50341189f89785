import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { isRecord } from '../../message/is-record.js';
import type { ModelMessage } from '../../message/message.js';
import { convertFromLangChain } from './convert-from-langchain.js';
import { convertToLangChain } from './convert-to-langchain.js';
import { type HeldConversation, type IntegrationOptions, IntegrationConversations } from './langchain-conversations.js';
import { dispatchLangChainEvents } from './langchain-events.js';
import { langChainModelTarget, langChainToolDefinitions } from './langchain-model-target.js';
import { langChainRecallTools } from './langchain-recall-tools.js';
import type { RecallOptions } from '../../conversation/recall-tools.js';

/** Options of {@link slidingContextMiddleware}. */
export interface SlidingContextMiddlewareOptions extends IntegrationOptions {
  /** The provider counts are made for; default: the chat model's own (`ls_provider`). */
  readonly provider?: string | undefined;
  /** The model counts are made for; default: the chat model's own (`ls_model_name`). */
  readonly model?: string | undefined;
  /** Smaller retries after the provider answers that a request is too long (default 3). */
  readonly maxRetries?: number | undefined;
  /**
   * The `search_history` and `read_history` tools the middleware adds to the agent (default on):
   * the model searches the thread's whole stored history and reads a cleared tool output back.
   * `false` leaves them out; an object sets the cap of their answers.
   */
  readonly recall?: boolean | RecallOptions | undefined;
}

/** The new messages of a call: those after the last one already stored. */
function unstored(messages: readonly BaseMessage[], storedIds: ReadonlySet<string>): BaseMessage[] {
  let start = messages.length;
  while (start > 0) {
    const id = messages[start - 1]?.id;
    if (id !== undefined && storedIds.has(id)) break;
    start -= 1;
  }
  return messages.slice(start);
}

/** The names of the tools called in `messages`, by call id. */
function toolNamesOf(messages: readonly BaseMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) if (call.id !== undefined) names.set(call.id, call.name);
  }
  return names;
}

/**
 * The window as LangChain messages: each message the agent's state holds is sent as it is there
 * (with everything its provider added), unless the window changed it (a cleared tool output);
 * the rest (the summary, history from before this process) converted from the store.
 */
function windowMessages(window: readonly ModelMessage[], sent: ReadonlyMap<string, BaseMessage>, toolNames: Map<string, string>): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (const message of window) {
    const original = message.id === undefined ? undefined : sent.get(message.id);
    const unchanged = original !== undefined && (message.role !== 'tool' || isDeepStrictEqual(convertFromLangChain([original], toolNames)[0]?.content, message.content));
    if (original && unchanged) messages.push(original);
    else for (const converted of convertToLangChain([message])) messages.push(converted);
  }
  return messages;
}

/** What the provider reported reading: its own usage object when LangChain kept it, else LangChain's `input_tokens`. */
function usageOf(response: AIMessage): unknown {
  const raw: unknown = response.response_metadata.usage;
  if (isRecord(raw)) return raw;
  // Read as a plain field: its declared type depends on the message's type parameters.
  const fields: { readonly usage_metadata?: unknown } = response;
  const metadata = fields.usage_metadata;
  return isRecord(metadata) && typeof metadata.input_tokens === 'number' ? { input_tokens: metadata.input_tokens } : undefined;
}

/**
 * Agent middleware for LangChain's `createAgent`: every model call sends a window of the
 * conversation within budget (whole exchanges, no orphaned tool message, exact counts), after the
 * call's new messages are stored, and the reply is stored with the provider's usage. A
 * context-overflow answer is retried with a smaller window. The conversation is the call's
 * `configurable.thread_id`, else `conversationId`, else one new agent per middleware. It adds
 * the `search_history` and `read_history` tools (see `recall`). `close()` closes the store it opened.
 */
export function slidingContextMiddleware(options: SlidingContextMiddlewareOptions = {}) {
  const conversations = new IntegrationConversations(options);
  const keyOf = (configurable: Record<string, unknown> | undefined) => {
    const threadId = configurable?.thread_id;
    return typeof threadId === 'string' && threadId !== '' ? threadId : (options.conversationId ?? '');
  };
  const recall = options.recall ?? true;
  const middleware = createMiddleware({
    name: 'SlidingContextMiddleware',
    tools: recall === false ? [] : langChainRecallTools(conversations, keyOf, recall === true ? {} : recall),
    wrapModelCall: async (request, handler) => {
      const key = keyOf(request.runtime.configurable);
      const target = langChainModelTarget(request.model, options);
      if (target === undefined) {
        throw new SlidingContextError('INVALID_OPTION', 'slidingContextMiddleware: the chat model does not say its provider and model; pass the provider and model options.');
      }
      const systemText = request.systemMessage.text;
      const held: HeldConversation = await conversations.held(key, {
        target,
        system: systemText === '' ? undefined : systemText,
        tools: langChainToolDefinitions(request.tools),
      });
      const writer = request.runtime.writer;
      return held.serially(async () => {
        const toolNames = toolNamesOf(request.messages);
        try {
          const fresh = unstored(request.messages, held.storedIds);
          await held.conversation.append(convertFromLangChain(fresh, toolNames));
          for (const message of fresh) if (message.id !== undefined) held.storedIds.add(message.id);
          const sent = new Map<string, BaseMessage>();
          for (const message of request.messages) if (message.id !== undefined) sent.set(message.id, message);
          const response = await held.conversation.send(
            async (_body, report) => {
              await dispatchLangChainEvents(held.events, writer);
              return handler({ ...request, messages: windowMessages(report.messages, sent, toolNames) });
            },
            { maxRetries: options.maxRetries },
          );
          if (AIMessage.isInstance(response)) {
            // The state keeps the reply under this id: the next call then knows it is stored.
            response.id ??= randomUUID();
            await held.conversation.append(convertFromLangChain([response], toolNames));
            held.storedIds.add(response.id);
            await held.conversation.endTurn({ usage: usageOf(response) });
          }
          return response;
        } finally {
          await dispatchLangChainEvents(held.events, writer);
        }
      });
    },
  });
  return Object.assign(middleware, {
    /** Closes the store the middleware opened from `dataDir` (a given `store` is left open). */
    close: () => conversations.close(),
  });
}
