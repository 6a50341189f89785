/**
 * The scripted model on the Anthropic Messages API, as Claude Code calls it: reads the task's state
 * from the request's `messages` and answers with the next step as a Messages event stream (or one JSON
 * message when the request does not stream). Tool calls go to Claude Code's `Read` and `Write` tools.
 * @see https://docs.anthropic.com/en/api/messages-streaming
 */
import { z } from 'zod';
import { type AgentCliTask, estimatedTokens, nextStep, type ScriptedStep, turnOf } from './agent-cli-task.js';
import type { LoopbackAnswer } from './loopback-server.js';

const block = z.looseObject({ type: z.string(), text: z.string().optional(), content: z.unknown().optional() });

const messagesBody = z.looseObject({
  model: z.string().default('scripted'),
  stream: z.boolean().optional(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(block)]) })),
});

type Message = z.infer<typeof messagesBody>['messages'][number];

function textOf(message: Message | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text ?? '' : '')).join('\n');
}

/** A tool result's content as text: a string, or text blocks; anything else is read as its JSON. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parsed = z.array(z.looseObject({ text: z.string() })).safeParse(content);
  return parsed.success ? parsed.data.map((part) => part.text).join('\n') : JSON.stringify(content);
}

/** The content blocks of a step: a text before a call, or the final text. */
function contentBlocks(step: ScriptedStep, turnNumber: number, callNumber: number): Record<string, unknown>[] {
  if (step.kind === 'final') return [{ type: 'text', text: step.text }];
  const call = step.kind === 'read'
    ? { name: 'Read', input: { file_path: step.path } }
    : { name: 'Write', input: { file_path: step.path, content: step.content } };
  return [{ type: 'text', text: step.preamble }, { type: 'tool_use', id: `toolu_${turnNumber}_${callNumber}`, ...call }];
}

/** Server-sent events for `message`, as the Messages API streams it; a tool's input arrives in two JSON pieces. */
function messageEvents(message: Record<string, unknown>, content: readonly Record<string, unknown>[], outputTokens: number): string {
  const stopReason = content.some((part) => part.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const events: Record<string, unknown>[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null } }, { type: 'ping' }];
  content.forEach((part, index) => {
    if (part.type === 'text') {
      const text = String(part.text);
      const half = Math.ceil(text.length / 2);
      events.push(
        { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(0, half) } },
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: text.slice(half) } },
      );
    } else {
      const json = JSON.stringify(part.input);
      const half = Math.ceil(json.length / 2);
      events.push(
        { type: 'content_block_start', index, content_block: { ...part, input: {} } },
        { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } },
        { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } },
      );
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } }, { type: 'message_stop' });
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

/** Answers one `POST /v1/messages` for `task`; a request that is not the task's (a title, a quota check) gets a short text. */
export function answerMessagesRequest(task: AgentCliTask, body: unknown, requestNumber: number): LoopbackAnswer {
  const parsed = messagesBody.safeParse(body);
  if (!parsed.success) return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `The scripted model cannot read this body: ${parsed.error.message}` } } };
  const { messages } = parsed.data;
  const lastPrompt = messages.findLastIndex((message) => message.role === 'user' && turnOf(task, textOf(message)) !== undefined);
  const turn = lastPrompt === -1 ? undefined : turnOf(task, textOf(messages[lastPrompt]));
  const toolOutputs = messages.slice(lastPrompt + 1).flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
    .filter((part) => part.type === 'tool_result').map((part) => resultText(part.content));
  const step: ScriptedStep = turn === undefined ? { kind: 'final', text: 'OK.' } : nextStep(task, turn, toolOutputs);
  const content = contentBlocks(step, task.turns.indexOf(turn ?? task.turns[0]!) + 1, toolOutputs.length + 1);
  const outputTokens = estimatedTokens(content);
  const message = {
    id: `msg_${requestNumber}`,
    type: 'message',
    role: 'assistant',
    model: parsed.data.model,
    usage: { input_tokens: estimatedTokens(messages), output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (parsed.data.stream !== true) {
    const stopReason = content.some((part) => part.type === 'tool_use') ? 'tool_use' : 'end_turn';
    return { status: 200, body: { ...message, content, stop_reason: stopReason, stop_sequence: null, usage: { ...message.usage, output_tokens: outputTokens } } };
  }
  return { status: 200, sse: messageEvents(message, content, outputTokens) };
}
