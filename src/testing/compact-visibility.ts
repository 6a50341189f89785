import { readFileSync } from 'node:fs';
import { summaryMessage } from '../condense/stored-summary.js';
import type { Summarizer } from '../condense/summarizer.js';
import { detectExchanges } from '../exchange/detect-exchanges.js';
import { parseConversationInput } from '../import/conversation-input.js';
import { isRecord } from '../message/is-record.js';
import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { readTranscript } from '../sources/read-transcript.js';
import { pathsIn } from '../condense/_text-paths.js';
import { parseJsonLines } from '../sources/transcript.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** A recorded conversation: its model messages, events left out. */
export interface RecordedConversation {
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly messages: readonly ModelMessage[];
}

/**
 * Reads a Claude Code session or Codex rollout (`.jsonl`), or a conversation body (`.json`), as one
 * history: a clear or compaction the session recorded is not applied, so that the whole session is measured.
 */
export function readRecordedConversation(file: string): RecordedConversation {
  const text = readFileSync(file, 'utf8');
  const input = file.endsWith('.jsonl') ? readTranscript(parseJsonLines(text.split(/\r?\n/)), { source: file }) : parseConversationInput(text, file);
  return { system: input.system, tools: input.tools, messages: input.messages.filter((message) => message.role !== 'event') };
}

export { pathsIn } from '../condense/_text-paths.js';

/** Arguments that hold file contents, not file names. */
const CONTENT_KEYS = new Set(['old_string', 'new_string', 'old_text', 'new_text', 'content', 'new_source', 'text', 'edits']);

function argumentStrings(value: unknown, key = ''): string[] {
  if (CONTENT_KEYS.has(key)) return [];
  if (typeof value === 'string') return [value.includes('*** Begin Patch') ? value.split('\n').filter((line) => line.startsWith('*** ')).map((line) => line.replace(/^\*\*\* [\w ]+: /, '')).join('\n') : value];
  if (Array.isArray(value)) return value.flatMap((item) => argumentStrings(item));
  if (isRecord(value)) return Object.entries(value).flatMap(([name, item]) => argumentStrings(item, name));
  return [];
}

/** The file paths named by the user's text or by tool-call arguments, each once, in order. */
export function namedPaths(messages: readonly ModelMessage[]): string[] {
  const found = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') {
      if (message.role === 'user') for (const path of pathsIn(message.content)) found.add(path);
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text' && message.role === 'user') for (const path of pathsIn(part.text)) found.add(path);
      if (part.type === 'tool-call') for (const text of argumentStrings(part.input)) for (const path of pathsIn(text)) found.add(path);
    }
  }
  return [...found];
}

/** What compacting a recorded conversation leaves in view. */
export interface CompactVisibility {
  readonly exchanges: number;
  readonly requestTokensBefore: number;
  readonly requestTokensAfter: number;
  readonly paths: readonly string[];
  readonly visiblePaths: readonly string[];
  readonly summary: string | undefined;
}

/** A budget below this is no real agent's: a short recorded session is measured as if under it. */
export const SMALLEST_BUDGET_TOKENS = 2_000;

/** Options of {@link measureCompact}. */
export interface MeasureCompactOptions {
  readonly counter: TokenCounter;
  readonly provider: string;
  readonly model: string;
  /** Without one: plain eviction, nothing stands for what left. */
  readonly summarizer?: Summarizer | undefined;
  /** The budget the summary's cap is a share of; default: the request before, at least {@link SMALLEST_BUDGET_TOKENS}. */
  readonly budgetTokens?: number | undefined;
  /** The share of the budget the summary may take (default 0.1, as `maxSummaryShare`). */
  readonly maxSummaryShare?: number | undefined;
  /** Exchanges folded per pass, each pass rolling on the previous summary; default: all at once. */
  readonly passExchanges?: number | undefined;
}

/**
 * Compacts as `compact` does (everything but the latest exchange into the summary) and measures the
 * request before and after, and which file paths named by the user or tool-call arguments are still
 * visible (in the summary or the window) after. Undefined for fewer than two exchanges.
 */
export async function measureCompact(conversation: RecordedConversation, options: MeasureCompactOptions): Promise<CompactVisibility | undefined> {
  const { counter, provider, model } = options;
  const { messages } = conversation;
  const exchanges = detectExchanges(messages);
  const latest = exchanges.at(-1);
  if (exchanges.length < 2 || !latest) return undefined;
  const count = (sent: readonly ModelMessage[]) => counter.count({ provider, model, request: { system: conversation.system, tools: conversation.tools, messages: sent } }).tokens;
  const requestTokensBefore = count(messages);
  const budget = options.budgetTokens ?? Math.max(SMALLEST_BUDGET_TOKENS, requestTokensBefore);
  const maxTokens = Math.max(1, Math.floor((options.maxSummaryShare ?? 0.1) * budget));
  const countTokens = (text: string) => counter.countMessage({ provider, model, message: summaryMessage(text) }).tokens;
  const evicted = exchanges.slice(0, -1).map((exchange) => messages.slice(exchange.firstMessage, exchange.lastMessage + 1));
  let summary: string | undefined;
  if (options.summarizer) {
    const pass = options.passExchanges ?? evicted.length;
    for (let start = 0; start < evicted.length; start += pass) {
      const result = await options.summarizer.summarize({ exchanges: evicted.slice(start, start + pass), previousSummary: summary, maxTokens, countTokens });
      summary = result.text;
    }
  }
  const after = [...messages.slice(0, exchanges[0]?.firstMessage ?? 0), ...(summary === undefined ? [] : [summaryMessage(summary)]), ...messages.slice(latest.firstMessage)];
  const visibleText = JSON.stringify(after);
  const paths = namedPaths(messages);
  return {
    exchanges: exchanges.length,
    requestTokensBefore,
    requestTokensAfter: count(after),
    paths,
    visiblePaths: paths.filter((path) => visibleText.includes(path)),
    summary,
  };
}
