/**
 * Recall for the model: `search_history` finds what the agent's history holds (what left the
 * window too) and `read_history` reads one stored message whole, such as a tool output the
 * `clear-tool-outputs` policy cleared. The tools' definitions, and running a call of them.
 */
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { isRecord } from '../message/is-record.js';
import type { ToolCallPart, ToolDefinition, ToolResultPart } from '../message/message.js';
import type { ConversationStore } from './conversation-store.js';
import { historyMessageText, historySearchText } from './recall-text.js';

/** The name of the search tool. */
export const SEARCH_HISTORY_TOOL = 'search_history';
/** The name of the tool that reads one stored message. */
export const READ_HISTORY_TOOL = 'read_history';

/** The recall tools as the model is offered them. */
export const RECALL_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: SEARCH_HISTORY_TOOL,
    description:
      'Search the whole history of this conversation, including what no longer fits in your context (earlier exchanges, cleared tool outputs). ' +
      'Gives the matching messages, best first, each with its exchange, its message number and an excerpt; read_history reads one whole.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'words to find (a file name, an identifier, an error); "a phrase" in quotes; or; -word to exclude' } },
      required: ['query'],
    },
  },
  {
    name: READ_HISTORY_TOOL,
    description: 'Read one stored message of this conversation whole, by its number: from search_history, or from "[output cleared: …, stored as message N]". Very long messages are cut at a size cap.',
    inputSchema: {
      type: 'object',
      properties: {
        message: { type: 'integer', description: 'the message number' },
        agent: { type: 'string', description: 'the agent id, only when the number was given as "message N of agent ID"' },
      },
      required: ['message'],
    },
  },
];

/** How a conversation offers recall: `true`, or the cap of each answer in (estimated) tokens. */
export interface RecallOptions {
  /** The most tokens a search or a message read back takes (default 4,000, estimated as bytes / 4). */
  readonly maxTokens?: number | undefined;
}

/** True for the name of a recall tool. */
export function isRecallTool(name: string): boolean {
  return name === SEARCH_HISTORY_TOOL || name === READ_HISTORY_TOOL;
}

/** `tools` with the recall tools after them; a tool of the caller's with a recall tool's name is kept instead. */
export function withRecallTools(tools: readonly ToolDefinition[] | undefined): ToolDefinition[] {
  const given = tools ?? [];
  const taken = new Set(given.map((tool) => tool.name));
  return [...given, ...RECALL_TOOL_DEFINITIONS.filter((tool) => !taken.has(tool.name))];
}

/** The input's field, when the input is an object. */
const field = (input: unknown, name: string): unknown => (isRecord(input) ? input[name] : undefined);

/** Errors a model can act on (a bad argument, a message it does not see): answered, not thrown. */
const ANSWERED_CODES = ['INVALID_INPUT', 'UNKNOWN_MESSAGE', 'UNKNOWN_AGENT'] as const;

/**
 * Runs a call of a recall tool against `agentId`'s history and gives its result part: the text
 * the model reads, within `maxTokens`. Bad arguments and unknown messages are answered as errors
 * the model can correct; a store that fails throws.
 */
export async function recallToolResult(
  store: Pick<ConversationStore, 'searchHistory' | 'readHistoryMessage'>,
  agentId: string,
  call: Pick<ToolCallPart, 'toolCallId' | 'toolName' | 'input'>,
  options: RecallOptions = {},
): Promise<ToolResultPart> {
  const answer = (text: string, isError: boolean): ToolResultPart => ({
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type: isError ? 'error-text' : 'text', value: text },
  });
  try {
    if (call.toolName === SEARCH_HISTORY_TOOL) {
      const query = field(call.input, 'query');
      if (typeof query !== 'string') return answer('search_history needs "query", the words to search for, as a string.', true);
      return answer(historySearchText(await store.searchHistory(agentId, query, { maxTokens: options.maxTokens })), false);
    }
    if (call.toolName === READ_HISTORY_TOOL) {
      const message = field(call.input, 'message');
      const seq = typeof message === 'string' && /^\d+$/.test(message.trim()) ? Number(message) : message;
      if (typeof seq !== 'number') return answer('read_history needs "message", the message number, as an integer.', true);
      const storedBy = field(call.input, 'agent');
      const read = await store.readHistoryMessage(agentId, seq, {
        maxTokens: options.maxTokens,
        storedBy: typeof storedBy === 'string' && storedBy.trim() !== '' && storedBy.trim() !== agentId ? storedBy.trim() : undefined,
      });
      return answer(historyMessageText(read, agentId), false);
    }
    return answer(`${call.toolName} is not a recall tool`, true);
  } catch (error) {
    if (ANSWERED_CODES.some((code) => isSlidingContextError(error, code)) && error instanceof Error) return answer(error.message, true);
    throw error;
  }
}
