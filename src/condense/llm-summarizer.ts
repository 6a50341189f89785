import { redactSecrets } from '../errors/redact-secrets.js';
import type { ModelMessage } from '../message/message.js';
import { toJson } from '../message/to-json.js';
import { toolOutputText } from '../message/tool-output-text.js';
import { resolveModel } from '../tokens/model-catalog.js';
import type { Complete } from './complete.js';
import type { Summarizer, SummaryCost, SummaryInput, SummaryResult } from './summarizer.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** Options of {@link llmSummarizer}. */
export interface LlmSummarizerOptions {
  /** Asks the summarizer's model once; each provider's folder makes one from its official SDK client. */
  readonly complete: Complete;
  /** The summarizer's own model, which need not be the conversation's: its context window bounds each call's input. */
  readonly model: string;
  /** The provider the model is catalogued under (`openai`, `anthropic`, `google`); unknown: a 128,000-token window. */
  readonly provider?: string | undefined;
  /** Instructions that replace the default ones. */
  readonly customCondensingPrompt?: string | undefined;
  /**
   * The most input tokens one call may take; longer input is summarized in parts that are then
   * merged. Default: the model's context window from the catalog, less the summary's room.
   */
  readonly maxInputTokens?: number | undefined;
}

/** The default instructions: keep what an agent needs to carry on the work. */
export const DEFAULT_CONDENSING_PROMPT = [
  'You condense the earlier part of a conversation between a user and a coding agent, so that the agent can carry on without it.',
  'Write a concise summary that keeps:',
  '1. The user\'s original task and every requirement or constraint they stated, in their words where it matters.',
  '2. Work done so far: what was changed, in which files (exact paths), and the commands that were run with their outcome.',
  '3. Key decisions and why they were made.',
  '4. Errors met and how they were resolved, or that they are still open.',
  '5. Open work: what remains to be done, and the next step.',
  'If a summary so far is given, fold the new part into it: the result replaces both. Write only the summary.',
].join('\n');

/** The instructions with the user's focus added: what the summary must keep above all. */
export function focusedPrompt(prompt: string, focus: string | undefined): string {
  const text = focus?.trim();
  if (!text) return prompt;
  return `${prompt}\n\nThe user asks this summary to focus on: ${text}\nStart the summary with what concerns it, and keep that part in full detail (exact names, paths, numbers); shorten the rest first.`;
}

const MERGE_PROMPT = 'Merge these partial summaries of consecutive parts of one conversation, oldest first, into one summary that keeps the user\'s task, open work, key decisions, file paths and unresolved errors. Write only the summary.';

/** Tool outputs are the bulk of a transcript and the least of a summary: each is clipped to this. */
const TOOL_OUTPUT_CHARACTERS = 2_000;

function clip(text: string, characters: number): string {
  return text.length <= characters ? text : `${text.slice(0, characters)}… [${text.length - characters} more characters]`;
}

/** One message as transcript lines. */
function transcriptLines(message: ModelMessage): string[] {
  const role = message.role === 'tool' ? 'Tool' : `${message.role[0]?.toUpperCase() ?? ''}${message.role.slice(1)}`;
  if (typeof message.content === 'string') return [`${role}: ${message.content}`];
  return message.content.flatMap((part): string[] => {
    switch (part.type) {
      case 'text': return [`${role}: ${part.text}`];
      case 'tool-call': return [`${role} called ${part.toolName}(${clip(toJson(part.input), 500)})`];
      case 'tool-result': return [`Result of ${part.toolName}: ${clip(toolOutputText(part.output), TOOL_OUTPUT_CHARACTERS)}`];
      case 'reasoning': return [];
      default: return [`${role}: [${part.type}]`];
    }
  });
}

/** Exchanges as a plain transcript, one block per exchange. */
export function renderTranscript(exchanges: readonly (readonly ModelMessage[])[]): string[] {
  return exchanges.map((messages) => messages.flatMap(transcriptLines).join('\n'));
}

/** One call's answer. */
interface Answer {
  readonly text: string;
  readonly cost: SummaryCost;
  readonly truncated: boolean;
  readonly filtered: boolean;
}

/** The summary's finish reason from its calls' answers: a filtered part taints the whole, as a cut-off one does. */
function finishReasonOf(answers: readonly Answer[]): SummaryResult['finishReason'] {
  if (answers.some((answer) => answer.filtered)) return 'content-filter';
  return answers.some((answer) => answer.truncated) ? 'length' : 'stop';
}

/**
 * Asks for one answer. A failure is thrown again with the keys and tokens its text holds taken out:
 * a server may echo the key it was sent, and the text becomes the fallback detail that is printed.
 */
async function ask(options: LlmSummarizerOptions, system: string, user: string, maxTokens: number, signal: AbortSignal | undefined): Promise<Answer> {
  try {
    return await askOnce(options, system, user, maxTokens, signal);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const redacted = redactSecrets(error.message);
    if (redacted === error.message) throw error;
    throw new SlidingContextError('PROVIDER_ERROR', redacted, { cause: error });
  }
}

async function askOnce(options: LlmSummarizerOptions, system: string, user: string, maxTokens: number, signal: AbortSignal | undefined): Promise<Answer> {
  const { text, truncated, filtered, inputTokens, outputTokens } = await options.complete(system, user, { maxTokens, signal });
  // A complete function of the caller's may pass on whatever its provider answered.
  if (typeof text !== 'string') throw new SlidingContextError('UNEXPECTED_RESPONSE', `the answer has no text string (it is ${Array.isArray(text) ? 'an array' : typeof text}).`);
  return { text, truncated, filtered: filtered === true, cost: { inputTokens, outputTokens } };
}

const addCost = (a: SummaryCost, b: SummaryCost): SummaryCost => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

/** Splits transcript blocks into runs that each fit `limit` tokens; a block alone too long is clipped. */
function chunk(blocks: readonly string[], limit: number, countTokens: (text: string) => number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const block of blocks) {
    let text = block;
    let size = countTokens(text);
    if (size > limit) {
      text = clip(text, Math.max(1, Math.floor((text.length * limit) / size) - 64));
      size = countTokens(text);
    }
    if (current.length > 0 && tokens + size > limit) {
      chunks.push(current.join('\n\n'));
      current = [];
      tokens = 0;
    }
    current.push(text);
    tokens += size;
  }
  if (current.length > 0) chunks.push(current.join('\n\n'));
  return chunks;
}

/**
 * A summarizer that asks a model, as Roo Code's condensing does. It is rolling: the new summary is the
 * previous one with the newly evicted exchanges folded in. Input longer than the model takes is
 * summarized in parts, and the parts merged. A summary the model cut off at its output cap comes
 * back with finish reason `length`, one the provider's filter stopped with `content-filter`; the conversation treats either as a failure. A `focus` is added
 * to the instructions (and to the merge's): the summary starts with it and keeps it in detail.
 */
export function llmSummarizer(options: LlmSummarizerOptions): Summarizer {
  return {
    name: 'llm',
    async summarize(input: SummaryInput): Promise<SummaryResult> {
      const system = focusedPrompt(options.customCondensingPrompt ?? DEFAULT_CONDENSING_PROMPT, input.focus);
      const model = resolveModel(options.provider ?? '', options.model);
      const previous = input.previousSummary ? `Summary so far:\n${input.previousSummary}\n\n` : '';
      const limit = (options.maxInputTokens ?? model.contextWindowTokens - input.maxTokens) - input.countTokens(system + previous) - 64;
      const blocks = renderTranscript(input.exchanges);
      const parts = chunk(blocks, Math.max(1, limit), input.countTokens);
      if (parts.length <= 1) {
        const answer = await ask(options, system, `${previous}Conversation to fold in:\n\n${parts[0] ?? ''}`, input.maxTokens, input.signal);
        return { text: answer.text.trim(), cost: answer.cost, finishReason: finishReasonOf([answer]) };
      }
      let cost: SummaryCost = { inputTokens: 0, outputTokens: 0 };
      const answers: Answer[] = [];
      const summaries: string[] = [];
      for (const [index, part] of parts.entries()) {
        const answer = await ask(options, system, `Part ${index + 1} of ${parts.length} of the conversation to fold in:\n\n${part}`, input.maxTokens, input.signal);
        cost = addCost(cost, answer.cost);
        answers.push(answer);
        summaries.push(answer.text.trim());
      }
      const merged = await ask(options, focusedPrompt(MERGE_PROMPT, input.focus), `${previous}${summaries.map((text, index) => `Part ${index + 1}:\n${text}`).join('\n\n')}`, input.maxTokens, input.signal);
      return { text: merged.text.trim(), cost: addCost(cost, merged.cost), finishReason: finishReasonOf([...answers, merged]) };
    },
  };
}
