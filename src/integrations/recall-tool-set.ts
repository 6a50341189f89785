/**
 * `search_history` and `read_history` as tool objects of the AI SDK (ai 5 and later), which Mastra
 * agents take as they are: for frameworks whose middleware cannot add a tool that runs. The
 * middleware notes which conversation made each recall call; the tool runs it on that history.
 */
import { z } from 'zod';
import type { ConversationStore } from '../conversation/conversation-store.js';
import { isRecallTool, READ_HISTORY_TOOL, RECALL_TOOL_DEFINITIONS, type RecallOptions, recallToolResult, SEARCH_HISTORY_TOOL } from '../conversation/recall-tools.js';
import { toolCallsOf } from '../exchange/tool-parts.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { toolOutputText } from '../message/tool-output-text.js';

/** A tool as the AI SDK's `tools` (and a Mastra agent's) take it: a description, an input schema, and what runs a call. */
export interface RecallTool {
  readonly description: string;
  readonly inputSchema: z.ZodType;
  /** Runs the call; the answer is the text the model reads (what went wrong, when it did). */
  execute(input: unknown, options: { readonly toolCallId: string }): Promise<string>;
}

/** The recall tools by name, to spread into `tools`. */
export type RecallToolSet = Record<typeof SEARCH_HISTORY_TOOL | typeof READ_HISTORY_TOOL, RecallTool>;

/** The input of `search_history`, as a zod schema. */
export const searchHistoryInput = z.object({ query: z.string().describe('words to find (a file name, an identifier, an error); "a phrase" in quotes; or; -word to exclude') });
/** The input of `read_history`, as a zod schema. */
export const readHistoryInput = z.object({
  message: z.number().int().describe('the message number'),
  agent: z.string().optional().describe('the agent id, only when the number was given as "message N of agent ID"'),
});

/** The description a recall tool is offered with. */
export const descriptionOf = (name: string) => RECALL_TOOL_DEFINITIONS.find((tool: ToolDefinition) => tool.name === name)?.description ?? name;

/** Which conversation made each recall call a wrapped model answered, until the call runs. */
export class RecallCalls {
  readonly #agents = new Map<string, string>();

  /** Notes a tool call the model made in `agentId`'s conversation (only recall calls are kept). */
  noteCall(call: { readonly toolCallId?: unknown; readonly toolName?: unknown }, agentId: string): void {
    if (typeof call.toolCallId === 'string' && typeof call.toolName === 'string' && isRecallTool(call.toolName)) this.#agents.set(call.toolCallId, agentId);
  }

  /** Notes the recall calls of an answer stored in `agentId`'s conversation. */
  noteAnswer(message: ModelMessage | undefined, agentId: string): void {
    if (message) for (const { part } of toolCallsOf(message)) this.noteCall(part, agentId);
  }

  /** The tools, running each call on the history of the conversation that made it, in `store`. */
  tools(store: () => Promise<Pick<ConversationStore, 'searchHistory' | 'readHistoryMessage'>>, options: RecallOptions = {}): RecallToolSet {
    const run = async (toolName: string, input: unknown, toolCallId: string): Promise<string> => {
      const agentId = this.#agents.get(toolCallId);
      if (agentId === undefined) {
        return `${toolName} runs on the conversation of a model wrapped with sliding-context; this call (${toolCallId}) came from no such model, so there is no history to read.`;
      }
      this.#agents.delete(toolCallId);
      return toolOutputText((await recallToolResult(await store(), agentId, { toolCallId, toolName, input }, options)).output);
    };
    const recallTool = (name: string, inputSchema: z.ZodType): RecallTool => ({
      description: descriptionOf(name),
      inputSchema,
      execute: (input, { toolCallId }) => run(name, input, toolCallId),
    });
    return { [SEARCH_HISTORY_TOOL]: recallTool(SEARCH_HISTORY_TOOL, searchHistoryInput), [READ_HISTORY_TOOL]: recallTool(READ_HISTORY_TOOL, readHistoryInput) };
  }
}
