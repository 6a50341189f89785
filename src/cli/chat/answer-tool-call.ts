import type { Conversation } from '../../conversation/conversation.js';
import type { ToolCallPart, ToolResultPart } from '../../message/message.js';
import { runChatTool, type ToolContext, type ToolOutcome } from './chat-tools.js';

/**
 * The result part that answers a tool call the model made in the chat. `search_history` and
 * `read_history` are the conversation's to run (see its `recall` option); the others, the chat's.
 * Arguments that were not JSON are kept as their text: the model is told, and tries again.
 */
export async function answerToolCall(call: ToolCallPart, conversation: Conversation, tools: ToolContext): Promise<ToolResultPart> {
  if (typeof call.input === 'string') return toolResult(call, invalidArguments(call.input));
  return (await conversation.answerRecallCall(call)) ?? toolResult(call, await runChatTool(call.toolName, call.input, tools));
}

/** The result part that answers `call` with what its tool did. */
function toolResult(call: ToolCallPart, outcome: ToolOutcome): ToolResultPart {
  return { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: outcome.isError ? 'error-text' : 'text', value: outcome.text } };
}

/** The answer to a tool call whose arguments were not a JSON object: what was wrong, and what to do. */
function invalidArguments(text: string): ToolOutcome {
  try {
    JSON.parse(text);
  } catch (error) {
    return { text: `the arguments were not valid JSON: ${error instanceof Error ? error.message : String(error)}; send the call again with valid JSON`, isError: true };
  }
  return { text: 'the arguments were not a JSON object; send the call again with an object of the arguments', isError: true };
}
