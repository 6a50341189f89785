/**
 * An OpenAI Chat Completions request as a server received it, made ready for the judge every
 * window benchmark uses: the body read leniently (a tool result whose call is missing is an orphan
 * to count, not an error), and a counter that counts each message once: a request's count is
 * exactly its preamble plus its messages, so a long history sent again and again costs lookups.
 */
import type { ModelMessage, ToolDefinition } from '../../src/message/message.js';
import type { TokenCount, TokenCounter } from '../../src/tokens/token-counter.js';

interface ChatMessage {
  readonly role?: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[];
  readonly tool_call_id?: string;
}

interface ChatBody {
  readonly messages?: readonly ChatMessage[];
  readonly tools?: readonly { readonly function: { readonly name: string; readonly description?: string; readonly parameters?: Record<string, unknown> } }[];
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('');
};

const parseInput = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** The request's system prompt, tools and messages in our model, one message for each sent. */
export function readOpenAiRequest(body: unknown): { system: string | undefined; tools: ToolDefinition[]; messages: ModelMessage[] } {
  const { messages = [], tools = [] } = body as ChatBody;
  const names = new Map<string, string>();
  const system: string[] = [];
  const read: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content));
    else if (message.role === 'user') read.push({ role: 'user', content: textOf(message.content) });
    else if (message.role === 'assistant') {
      const text = textOf(message.content);
      const calls = (message.tool_calls ?? []).map((call) => {
        names.set(call.id, call.function.name);
        return { type: 'tool-call' as const, toolCallId: call.id, toolName: call.function.name, input: parseInput(call.function.arguments) };
      });
      read.push({ role: 'assistant', content: [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...calls] });
    } else if (message.role === 'tool') {
      const toolCallId = message.tool_call_id ?? '';
      read.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: names.get(toolCallId) ?? 'unknown', output: { type: 'text', value: textOf(message.content) } }] });
    }
  }
  return {
    system: system.length === 0 ? undefined : system.join('\n\n'),
    tools: tools.map(({ function: tool }) => ({
      name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), inputSchema: tool.parameters ?? {},
    })),
    messages: read,
  };
}

/** A counter that counts each distinct message and preamble once. */
export function memoizedCounter(counter: TokenCounter): TokenCounter {
  const messages = new Map<string, TokenCount>();
  const preambles = new Map<string, TokenCount>();
  const countPreamble: TokenCounter['countPreamble'] = (input) => {
    const key = JSON.stringify([input.provider, input.model, input.system, input.tools, input.toolChoice]);
    let count = preambles.get(key);
    if (!count) preambles.set(key, (count = counter.countPreamble(input)));
    return count;
  };
  const countMessage: TokenCounter['countMessage'] = (input) => {
    const key = JSON.stringify([input.provider, input.model, input.message]);
    let count = messages.get(key);
    if (!count) messages.set(key, (count = counter.countMessage(input)));
    return count;
  };
  return {
    countPreamble,
    countMessage,
    count: ({ provider, model, request }) => {
      const preamble = countPreamble({ provider, model, system: request.system, tools: request.tools, toolChoice: request.toolChoice });
      let tokens = preamble.tokens;
      let exact = preamble.exact;
      for (const message of request.messages) {
        const count = countMessage({ provider, model, message });
        tokens += count.tokens;
        exact &&= count.exact;
      }
      return { tokens, exact, method: preamble.method };
    },
  };
}
