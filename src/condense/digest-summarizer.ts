import type { ModelMessage } from '../message/message.js';
import { DIGEST_HEADING, type DigestLine, type DigestState, digestLines, emptyDigestState, parseDigest, renderDigest } from './_digest-state.js';
import { clip, foldExchange } from './_fold-exchange.js';
import type { Summarizer, SummaryInput, SummaryResult } from './summarizer.js';

export { DIGEST_HEADING } from './_digest-state.js';

/** A focus longer than this is clipped: it is a direction, not a document. */
const FOCUS_CHARACTERS = 600;

/** A request that must shrink before requests are dropped is clipped to this many characters. */
const SHORT_REQUEST_CHARACTERS = 160;

/** One step of shrinking a digest: a line replaced by a shorter one, or dropped (`undefined`). */
interface ShrinkStep {
  readonly line: DigestLine;
  readonly replacement: string | undefined;
}

/**
 * The order in which lines give way when the digest is over its cap, least valuable first; within
 * a rank, the oldest first. Files and constraints go last of all: files read, then constraints,
 * then the files changed; the focus the user asked for goes last.
 */
function shrinkSteps(lines: readonly DigestLine[]): ShrinkStep[] {
  const oldestFirst = (section: DigestLine['section'], keep: (line: DigestLine) => boolean = () => true) =>
    lines.filter((line) => line.section === section && keep(line));
  const drop = (chosen: readonly DigestLine[]) => chosen.map((line) => ({ line, replacement: undefined }));
  const failed = (line: DigestLine) => / → (exit [1-9-]|failed)/.test(line.text) || line.text.startsWith('[unresolved]');
  const read = (line: DigestLine) => line.text.endsWith(': read');
  // The newest few of the cheap sections stay until the requests have been shortened.
  const recentCount = 3;
  const older = (chosen: readonly DigestLine[]) => chosen.slice(0, Math.max(0, chosen.length - recentCount));
  const recent = (chosen: readonly DigestLine[]) => chosen.slice(Math.max(0, chosen.length - recentCount));
  const cheap = [
    oldestFirst('earlier'),
    oldestFirst('decisions'),
    oldestFirst('commands', (line) => !failed(line)),
    oldestFirst('done'),
    oldestFirst('errors', (line) => !failed(line)),
  ];
  return [
    ...cheap.flatMap((chosen) => drop(older(chosen))),
    ...oldestFirst('requests', (line) => line.text.length > SHORT_REQUEST_CHARACTERS).map((line) => ({ line, replacement: clip(line.text, SHORT_REQUEST_CHARACTERS) })),
    ...cheap.flatMap((chosen) => drop(recent(chosen))),
    ...drop(oldestFirst('requests')),
    ...drop(oldestFirst('openItems').reverse()),
    ...drop(oldestFirst('commands', failed)),
    ...drop(oldestFirst('errors', failed)),
    ...drop(oldestFirst('files', read)),
    ...drop(oldestFirst('constraints')),
    ...drop(oldestFirst('files', (line) => !read(line))),
    ...drop(oldestFirst('focus')),
  ];
}

/**
 * The lines shown: a constraint a shown request holds word for word is left out, and comes back
 * when that request is shortened or dropped.
 */
function shownLines(current: ReadonlyMap<DigestLine, string | undefined>): DigestLine[] {
  const kept: DigestLine[] = [];
  for (const [line, text] of current) if (text !== undefined) kept.push({ ...line, text });
  const requests = kept.filter((line) => line.section === 'requests').map((line) => line.text);
  return kept.filter((line) => line.section !== 'constraints' || !requests.some((request) => request.includes(line.text)));
}

/**
 * The digest of a state within `maxTokens`: while it is over, lines give way in the order of
 * {@link shrinkSteps}. Per-line counts steer the loop; the whole text is counted before it stops.
 */
function fitDigest(state: DigestState, maxTokens: number, countTokens: (text: string) => number): string {
  const current = new Map<DigestLine, string | undefined>(digestLines(state).map((line) => [line, line.text]));
  let text = renderDigest(shownLines(current));
  if (countTokens(text) <= maxTokens) return text;
  const lineTokens = new Map<string, number>();
  const tokensOf = (line: DigestLine) => {
    let tokens = lineTokens.get(line.text);
    if (tokens === undefined) lineTokens.set(line.text, (tokens = countTokens(`- ${line.text}\n`)));
    return tokens;
  };
  // Close to the cap the estimate is checked against a count of the whole text.
  const slackTokens = 16;
  for (const step of shrinkSteps([...current.keys()])) {
    if (current.get(step.line) === undefined) continue;
    current.set(step.line, step.replacement);
    const shown = shownLines(current);
    if (shown.reduce((sum, line) => sum + tokensOf(line), countTokens(DIGEST_HEADING)) > maxTokens + slackTokens) continue;
    text = renderDigest(shown);
    if (countTokens(text) <= maxTokens) return text;
  }
  return DIGEST_HEADING;
}

/** The digest of one exchange, uncapped: its sections under the heading. */
export function digestExchange(messages: readonly ModelMessage[]): string {
  const state = emptyDigestState();
  foldExchange(state, messages);
  return renderDigest(digestLines(state));
}

/**
 * The default summarizer: no model, no cost, the same text for the same history. The digest keeps
 * the user's requests (whole up to 600 characters) and, verbatim, their sentences with a rule word
 * (must, never, always, don't) or a number; the files touched with the last action on each, from
 * tool-call arguments, shell commands and patches; commands with their exit code and first error
 * line; errors and whether a later step resolved them; the final answers, shortened; a ledger of
 * completed work; and the open items of the latest todo list or plan. It is rolling: the previous
 * digest is read back and the new exchanges folded in. Within `maxTokens`, the least valuable
 * lines give way first (old answers, passing commands, the ledger), constraints and files last.
 * A `focus` is shown first, under its own title, and kept by later digests until another replaces it.
 */
export function digestSummarizer(): Summarizer {
  return {
    name: 'digest',
    summarize(input: SummaryInput): Promise<SummaryResult> {
      const state = parseDigest(input.previousSummary);
      const focus = input.focus?.trim();
      if (focus) state.focus = [clip(focus, FOCUS_CHARACTERS)];
      for (const exchange of input.exchanges) foldExchange(state, exchange);
      const text = fitDigest(state, input.maxTokens, input.countTokens);
      return Promise.resolve({ text, cost: { inputTokens: 0, outputTokens: 0, usd: 0 }, finishReason: 'stop' });
    },
  };
}
