import { z } from 'zod';
import type { AssistantMessage, Message, ToolDefinition, ToolResultPart, UserMessage } from '../../../message/message.js';
import { isInjectedContext } from './is-injected-context.js';
import { type ConversionOptions, type ConvertedRequest, conversionError, convertEach, otherFields, parseArguments, parseBody, rawArguments } from '../../conversion.js';

const contentPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_text'), text: z.string() }),
  z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()).optional() }),
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
  z.object({ type: z.literal('input_image'), image_url: z.string().nullish(), file_id: z.string().nullish(), detail: z.enum(['auto', 'low', 'high']).optional() }),
  z.object({ type: z.literal('input_file'), file_data: z.string().optional(), file_url: z.string().optional(), file_id: z.string().nullish(), filename: z.string().optional() }),
]);
const item = z.union([
  z.object({ type: z.literal('message').optional(), role: z.enum(['user', 'assistant', 'system', 'developer']), content: z.union([z.string(), z.array(contentPart)]), id: z.string().optional(), status: z.string().optional() }),
  z.object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string(), id: z.string().optional(), status: z.string().optional() }),
  z.object({ type: z.literal('function_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(contentPart)]), id: z.string().nullish(), status: z.string().nullish() }),
  z.object({ type: z.literal('reasoning'), id: z.string(), summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })), encrypted_content: z.string().nullish() }),
]);
const bodySchema = z.looseObject({
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(item)]),
  tools: z
    .array(
      z.looseObject({
        type: z.string(),
        name: z.string().optional(),
        description: z.string().nullish(),
        parameters: z.record(z.string(), z.unknown()).nullish(),
        strict: z.boolean().nullish(),
      }),
    )
    .optional(),
});

type AssistantParts = Exclude<AssistantMessage['content'], string>;

/**
 * Takes an OpenAI Responses body apart: `instructions` as the system prompt; `message`,
 * `function_call`, `function_call_output` and `reasoning` items as neutral messages, merging
 * consecutive assistant-side items into one assistant turn and consecutive outputs into one tool
 * message. Item ids and encrypted reasoning travel in `providerOptions.openai`.
 * Arguments that are not JSON are kept as a string input. A user message that holds only a block
 * Codex injected (its environment, AGENTS.md instructions) is a system message sent back as a user
 * one (see {@link isInjectedContext}), so the window keeps it with the preamble.
 * @throws SlidingContextError naming the field: an output whose call is missing (`input[4].call_id`);
 * with `onRefused`, such an item is reported and left out instead.
 */
export function convertFromOpenAiResponses(body: unknown, conversion: ConversionOptions = {}): ConvertedRequest {
  const parsed = parseBody(bodySchema, body, 'OpenAI Responses');
  const items = typeof parsed.input === 'string' ? [{ role: 'user' as const, content: parsed.input }] : parsed.input;
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  const assistantTurn = (): AssistantParts => {
    const last = messages.at(-1);
    if (last?.role === 'assistant' && Array.isArray(last.content)) return last.content;
    const content: AssistantParts = [];
    messages.push({ role: 'assistant', content });
    return content;
  };
  convertEach(items, (entry, index) => {
    const at = `input[${index}]`;
    if (!('type' in entry) || entry.type === undefined || entry.type === 'message') {
      if (!('role' in entry)) return;
      const texts = typeof entry.content === 'string' ? [entry.content] : entry.content.flatMap((part) => ('text' in part ? [part.text] : []));
      if (entry.role === 'system' || entry.role === 'developer') {
        messages.push({ role: 'system', content: texts.join(''), ...(entry.role === 'developer' ? { providerOptions: { openai: { role: 'developer' } } } : {}) });
      } else if (entry.role === 'assistant') {
        for (const text of texts) assistantTurn().push({ type: 'text', text });
      } else if (texts.length > 0 && isInjectedContext(texts.join('')) && (typeof entry.content === 'string' || entry.content.every((part) => part.type === 'input_text'))) {
        messages.push({ role: 'system', content: texts.join(''), providerOptions: { openai: { role: 'user' } } });
      } else {
        const content: UserMessage['content'] =
          typeof entry.content === 'string'
            ? entry.content
            : entry.content.flatMap((part): Exclude<UserMessage['content'], string> => {
                if (part.type === 'input_text' || part.type === 'output_text') return [{ type: 'text', text: part.text }];
                if (part.type === 'input_image') {
                  return [{ type: 'image', image: part.image_url ?? part.file_id ?? '', ...(part.detail ? { providerOptions: { openai: { imageDetail: part.detail } } } : {}) }];
                }
                if (part.type === 'input_file') {
                  return [{ type: 'file', data: part.file_data ?? part.file_url ?? part.file_id ?? '', mediaType: 'application/pdf', ...(part.filename ? { filename: part.filename } : {}) }];
                }
                return [];
              });
        messages.push({ role: 'user', content });
      }
      return;
    }
    switch (entry.type) {
      case 'reasoning':
        assistantTurn().push({
          type: 'reasoning',
          text: entry.summary.map((part) => part.text).join('\n\n'),
          providerOptions: { openai: { itemId: entry.id, ...(entry.encrypted_content ? { encryptedContent: entry.encrypted_content } : {}) } },
        });
        return;
      case 'function_call': {
        const input = parseArguments(entry.arguments);
        toolNames.set(entry.call_id, entry.name);
        const raw = rawArguments(entry.arguments, input).providerOptions?.openai;
        const options = { ...(entry.id ? { itemId: entry.id } : {}), ...raw };
        assistantTurn().push({
          type: 'tool-call',
          toolCallId: entry.call_id,
          toolName: entry.name,
          input,
          ...(Object.keys(options).length > 0 ? { providerOptions: { openai: options } } : {}),
        });
        return;
      }
      case 'function_call_output': {
        const toolName = toolNames.get(entry.call_id);
        if (toolName === undefined) throw conversionError(`${at}.call_id`, `no earlier function_call has the call_id "${entry.call_id}"`, 'ORPHANED_TOOL_RESULT');
        const value = typeof entry.output === 'string' ? entry.output : entry.output.map((part) => ('text' in part ? part.text : '')).join('');
        const result: ToolResultPart = { type: 'tool-result', toolCallId: entry.call_id, toolName, output: { type: 'text', value } };
        const last = messages.at(-1);
        if (last?.role === 'tool') last.content.push(result);
        else messages.push({ role: 'tool', content: [result] });
      }
    }
  }, conversion);
  const tools: ToolDefinition[] = (parsed.tools ?? [])
    .filter((tool) => tool.type === 'function' && tool.name !== undefined)
    .map((tool) => ({
      name: tool.name ?? '',
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict == null ? {} : { providerOptions: { openai: { strict: tool.strict } } }),
    }));
  const otherTools = (parsed.tools ?? []).filter((tool) => tool.type !== 'function');
  return {
    ...(parsed.instructions ? { system: parsed.instructions } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    options: { ...otherFields(parsed, ['instructions', 'input', 'tools']), ...(otherTools.length > 0 ? { otherTools } : {}) },
  };
}
