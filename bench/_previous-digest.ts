import { toolCallsOf, toolResultsOf } from '../src/exchange/tool-parts.js';
import type { ModelMessage } from '../src/message/message.js';
import { toolOutputText } from '../src/message/tool-output-text.js';
import type { Summarizer, SummaryInput, SummaryResult } from '../src/condense/summarizer.js';

/**
 * The digest summarizer as it was before the structured digest (one clipped line per exchange),
 * kept only so that the digest benchmark can compare against it.
 */

/** The first line of every digest: it says what the lines below are. */
const DIGEST_HEADING = 'Earlier in this conversation (a digest of exchanges no longer in the context):';

/** Input keys that name a file, and keys that hold a command, in tool-call arguments. */
const PATH_KEYS = ['path', 'file', 'file_path', 'filePath', 'filename', 'target_file'];
const COMMAND_KEYS = ['command', 'cmd'];

/** Line lengths an entry is clipped to as it ages, newest first; then entries are only counted. */
const AGING_WIDTHS = [400, 160, 60];

function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).filter(Boolean).join(' ');
}

function stringArgument(input: unknown, keys: readonly string[]): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** One exchange as one line: the request, the tools with their key arguments, files, errors, the answer. */
function digestExchange(messages: readonly ModelMessage[]): string {
  const request = messages.find((message) => message.role === 'user');
  const tools: string[] = [];
  const files = new Set<string>();
  const errors: string[] = [];
  let answer = '';
  for (const message of messages) {
    for (const { part } of toolCallsOf(message)) {
      const path = stringArgument(part.input, PATH_KEYS);
      const command = stringArgument(part.input, COMMAND_KEYS);
      if (path) files.add(path);
      tools.push(command ? `${part.toolName} \`${clip(command, 60)}\`` : path ? `${part.toolName} ${path}` : part.toolName);
    }
    for (const { part } of toolResultsOf(message)) {
      if (part.output.type === 'error-text' || part.output.type === 'error-json') errors.push(`${part.toolName}: ${clip(toolOutputText(part.output), 80)}`);
    }
    if (message.role === 'assistant' && textOf(message).trim() !== '') answer = textOf(message);
  }
  const fields = [`asked "${clip(request ? textOf(request) : '', 120)}"`];
  if (tools.length > 0) fields.push(`tools: ${tools.join(', ')}`);
  if (files.size > 0) fields.push(`files: ${[...files].join(', ')}`);
  if (errors.length > 0) fields.push(`errors: ${errors.join('; ')}`);
  if (answer !== '') fields.push(`answered "${clip(answer, 160)}"`);
  return `- ${fields.join(' · ')}`;
}

const EARLIER = /^- \((\d+) earlier exchanges?, condensed\)$/;

/**
 * Ages a digest until it fits `maxTokens`: the oldest entries are clipped shorter and shorter,
 * then folded into a count. The newest entries are the last to shrink.
 */
function fitDigest(entries: readonly string[], folded: number, maxTokens: number, countTokens: (text: string) => number): string {
  const render = (lines: readonly string[], count: number) =>
    [DIGEST_HEADING, ...(count > 0 ? [`- (${count} earlier exchange${count === 1 ? '' : 's'}, condensed)`] : []), ...lines].join('\n');
  const lines = [...entries];
  let count = folded;
  const over = () => countTokens(render(lines, count)) > maxTokens;
  // Every line but the newest, oldest first, at each width in turn; then the oldest are folded.
  for (const width of AGING_WIDTHS) {
    for (let index = 0; index < lines.length - 1 && over(); index++) lines[index] = clip(lines[index] as string, width);
  }
  while (lines.length > 1 && over()) {
    lines.shift();
    count++;
  }
  // The newest line last of all.
  for (const width of AGING_WIDTHS) if (lines.length > 0 && over()) lines[0] = clip(lines[0] as string, width);
  if (lines.length > 0 && over()) {
    lines.shift();
    count++;
  }
  return render(lines, count);
}

/**
 * The default summarizer: no model, no cost, the same output for the same input. Each evicted
 * exchange becomes one line (who asked what, which tools with their paths and commands, which
 * files, any errors, the final answer, all clipped). It is rolling: older lines are compressed
 * further as they age, so the digest stays within `maxTokens`.
 */
export function previousDigestSummarizer(): Summarizer {
  return {
    name: 'previous-digest',
    summarize(input: SummaryInput): Promise<SummaryResult> {
      const previous = (input.previousSummary ?? '').split('\n').filter((line) => line.startsWith('- '));
      const folded = previous.reduce((sum, line) => sum + Number(EARLIER.exec(line)?.[1] ?? 0), 0);
      const entries = [...previous.filter((line) => !EARLIER.test(line)), ...input.exchanges.map(digestExchange)];
      const text = fitDigest(entries, folded, input.maxTokens, input.countTokens);
      return Promise.resolve({ text, cost: { inputTokens: 0, outputTokens: 0, usd: 0 }, finishReason: 'stop' });
    },
  };
}
