/**
 * The scripted model on the OpenAI Responses API, as Codex calls it: reads the task's state from the
 * request's `input` and answers with the next step as a Responses event stream (or one JSON response
 * when the request does not stream). Tool calls go to Codex's `exec_command` shell tool.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import { z } from 'zod';
import { type AgentCliTask, estimatedTokens, nextStep, type ScriptedStep, turnOf } from './agent-cli-task.js';
import type { LoopbackAnswer } from './loopback-server.js';

const textParts = z.union([z.string(), z.array(z.looseObject({ text: z.string().optional() }))]);

const responsesBody = z.looseObject({
  model: z.string().default('scripted'),
  stream: z.boolean().optional(),
  input: z.union([z.string(), z.array(z.looseObject({ type: z.string().optional(), role: z.string().optional(), content: textParts.optional(), output: z.unknown().optional() }))]),
});

type InputItem = Exclude<z.infer<typeof responsesBody>['input'], string>[number];

function textOf(parts: z.infer<typeof textParts> | undefined): string {
  if (parts === undefined) return '';
  return typeof parts === 'string' ? parts : parts.map((part) => part.text ?? '').join('\n');
}

/** A tool output as text: Codex sends a string; anything else is read as its JSON. */
function outputText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}

function isUserMessage(item: InputItem): boolean {
  return (item.type === undefined || item.type === 'message') && item.role === 'user';
}

/** The output items of a step: a message before a call, or the final message. */
function outputItems(step: ScriptedStep, turnNumber: number, callNumber: number): Record<string, unknown>[] {
  const message = (text: string) => ({ type: 'message', id: `msg_${turnNumber}_${callNumber}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
  if (step.kind === 'final') return [message(step.text)];
  const command = step.kind === 'read' ? `cat '${step.path}'` : `printf '%s\\n' '${step.content.trimEnd()}' > '${step.path}'`;
  return [
    message(step.preamble),
    { type: 'function_call', id: `fc_${turnNumber}_${callNumber}`, call_id: `call_${turnNumber}_${callNumber}`, name: 'exec_command', arguments: JSON.stringify({ cmd: command }), status: 'completed' },
  ];
}

/** Server-sent events for a response with `output`, as the Responses API streams them. */
function responseEvents(response: Record<string, unknown>, output: readonly Record<string, unknown>[]): string {
  const events: Record<string, unknown>[] = [
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } },
    { type: 'response.in_progress', response: { ...response, status: 'in_progress', output: [], usage: null } },
  ];
  output.forEach((item, outputIndex) => {
    const itemId = item.id;
    if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0]?.text ?? '';
      events.push(
        { type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } },
        { type: 'response.content_part.added', item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
        { type: 'response.output_text.delta', item_id: itemId, output_index: outputIndex, content_index: 0, delta: text },
        { type: 'response.output_text.done', item_id: itemId, output_index: outputIndex, content_index: 0, text },
        { type: 'response.content_part.done', item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text, annotations: [] } },
      );
    } else {
      const argumentsText = String(item.arguments);
      events.push(
        { type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } },
        { type: 'response.function_call_arguments.delta', item_id: itemId, output_index: outputIndex, delta: argumentsText },
        { type: 'response.function_call_arguments.done', item_id: itemId, output_index: outputIndex, arguments: argumentsText },
      );
    }
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  events.push({ type: 'response.completed', response: { ...response, status: 'completed', output } });
  return events.map((event, sequenceNumber) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequenceNumber })}\n\n`).join('');
}

/** Answers one `POST /v1/responses` for `task`; a request that is not the task's gets a short text. */
export function answerResponsesRequest(task: AgentCliTask, body: unknown, requestNumber: number): LoopbackAnswer {
  const parsed = responsesBody.safeParse(body);
  if (!parsed.success) return { status: 400, body: { error: { type: 'invalid_request_error', message: `The scripted model cannot read this body: ${parsed.error.message}` } } };
  const input = typeof parsed.data.input === 'string' ? [{ type: 'message', role: 'user', content: parsed.data.input }] : parsed.data.input;
  const lastPrompt = input.findLastIndex((item) => isUserMessage(item) && turnOf(task, textOf(item.content)) !== undefined);
  const turn = lastPrompt === -1 ? undefined : turnOf(task, textOf(input[lastPrompt]?.content));
  const toolOutputs = input.slice(lastPrompt + 1).filter((item) => item.type === 'function_call_output').map((item) => outputText(item.output));
  const step: ScriptedStep = turn === undefined ? { kind: 'final', text: 'OK.' } : nextStep(task, turn, toolOutputs);
  const output = outputItems(step, task.turns.indexOf(turn ?? task.turns[0]!) + 1, toolOutputs.length + 1);
  const inputTokens = estimatedTokens(parsed.data.input);
  const outputTokens = estimatedTokens(output);
  const response = {
    id: `resp_${requestNumber}`,
    object: 'response',
    created_at: 1_700_000_000 + requestNumber,
    model: parsed.data.model,
    usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens },
  };
  if (parsed.data.stream !== true) return { status: 200, body: { ...response, status: 'completed', output } };
  return { status: 200, sse: responseEvents(response, output) };
}
