/** One streamed reply of the Chat Completions API: text, or tool calls with their arguments text as sent. */
export interface ScriptedReply {
  readonly text?: string | undefined;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[] | undefined;
}

/**
 * The server-sent events Chat Completions streams for a reply, in the shape of the recorded
 * streams under `providers/__fixtures__/streams`: the text in two pieces, each tool call's arguments in
 * two pieces, the finish reason, the usage, `[DONE]`. Arguments are sent as given, valid JSON or not.
 */
export function openAiChatStream(reply: ScriptedReply): string {
  const chunk = (delta: unknown, finishReason: string | null = null, usage: unknown = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1763683200, model: 'gpt-4o-2024-08-06', choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], usage })}\n\n`;
  const halves = (text: string) => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];
  const events = [chunk({ role: 'assistant', content: reply.text === undefined ? null : '' })];
  for (const piece of reply.text === undefined ? [] : halves(reply.text)) events.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of halves(call.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop'));
  events.push(chunk(null, null, { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }), 'data: [DONE]\n\n');
  return events.join('');
}
