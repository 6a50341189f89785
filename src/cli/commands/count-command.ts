import type { CountCommandOptions } from './count-command-line.js';
import { applyEvents } from '../../message/apply-events.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { describeInput, inputJson, readConversationInput, resolveTarget } from '../read-conversation-input.js';
import { formatNumber } from '../render/format-number.js';

/** `sliding-context count [file|-]`: counts the request segment by segment. */
export async function runCountCommand(file: string | undefined, options: CountCommandOptions, io: CliIo): Promise<void> {
  const input = await readConversationInput(io, file, options.format);
  const messages = applyEvents(input.messages);
  const target = resolveTarget(input, options);
  const counter = await loadCliCounter(io, target.provider, target.model);
  const preamble = counter.countPreamble({ ...target, system: input.system, tools: input.tools });
  const messageSegments = messages.map((message, index) => ({ segment: 'message', index, role: message.role, ...counter.countMessage({ ...target, message }) }));
  const segments = [{ segment: 'preamble', ...preamble }, ...messageSegments];
  const total = counter.count({ ...target, request: { system: input.system, tools: input.tools, messages } });
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ ...inputJson(input), ...target, tokens: total.tokens, exact: total.exact, method: total.method, segments }, null, 2)}\n`);
    return;
  }
  const width = Math.max(6, formatNumber(total.tokens).length);
  const lines = [`sliding-context count · ${describeInput(input)} input · ${target.provider}/${target.model}`, ''];
  // `~` marks every estimated segment, the preamble too.
  const row = (label: string, count: { tokens: number; exact: boolean }) => `${label.padEnd(22)}${formatNumber(count.tokens).padStart(width)}${count.exact ? '' : '  ~'}`;
  lines.push(`${row('preamble', preamble)}  (framing, system prompt, tools)`);
  for (const segment of messageSegments) lines.push(row(`messages[${String(segment.index)}] ${segment.role}`, segment));
  const how = total.exact ? `${total.method}, exact` : `${total.method}, an estimate (~ marks estimated segments)`;
  lines.push('', `${'total'.padEnd(22)}${formatNumber(total.tokens).padStart(width)}  ${how}`);
  io.stdout.write(`${lines.join('\n')}\n`);
}
