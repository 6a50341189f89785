import { tool } from '@langchain/core/tools';
import { READ_HISTORY_TOOL, type RecallOptions, recallToolResult, SEARCH_HISTORY_TOOL } from '../../conversation/recall-tools.js';
import { isRecord } from '../../message/is-record.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import { descriptionOf, readHistoryInput, searchHistoryInput } from '../recall-tool-set.js';
import type { IntegrationConversations } from './langchain-conversations.js';

/** The run's `configurable` and the call's id, from what LangChain passes a tool besides its input. */
function callOf(runtime: unknown): { configurable: Record<string, unknown> | undefined; toolCallId: string } {
  if (!isRecord(runtime)) return { configurable: undefined, toolCallId: '' };
  const configurable = isRecord(runtime.configurable) ? runtime.configurable : undefined;
  const call = isRecord(runtime.toolCall) ? runtime.toolCall.id : runtime.toolCallId;
  return { configurable, toolCallId: typeof call === 'string' ? call : '' };
}

/**
 * `search_history` and `read_history` as LangChain tools, for the middleware to register: each
 * runs on the stored history of the conversation its call belongs to (`keyOf` the run's
 * `configurable`, as for a model call).
 */
export function langChainRecallTools(
  conversations: IntegrationConversations,
  keyOf: (configurable: Record<string, unknown> | undefined) => string,
  options: RecallOptions,
) {
  const run = async (toolName: string, input: unknown, runtime: unknown): Promise<string> => {
    const { configurable, toolCallId } = callOf(runtime);
    const held = conversations.opened(keyOf(configurable));
    if (held === undefined) return `${toolName}: this conversation has stored nothing yet.`;
    const { conversation } = await held;
    const result = await recallToolResult(await conversations.store(), conversation.agentId, { toolCallId, toolName, input }, options);
    return toolOutputText(result.output);
  };
  return [
    tool((input, runtime) => run(SEARCH_HISTORY_TOOL, input, runtime), {
      name: SEARCH_HISTORY_TOOL,
      description: descriptionOf(SEARCH_HISTORY_TOOL),
      schema: searchHistoryInput,
    }),
    tool((input, runtime) => run(READ_HISTORY_TOOL, input, runtime), {
      name: READ_HISTORY_TOOL,
      description: descriptionOf(READ_HISTORY_TOOL),
      schema: readHistoryInput,
    }),
  ];
}
