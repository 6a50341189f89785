import { newAgentMeta } from '../../conversation/agent-settings.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { HistoryStore } from '../../store/history-store.js';
import { requireValidConversation } from '../../exchange/require-valid-conversation.js';
import { applyEvents } from '../../message/apply-events.js';
import { readTranscript, TRANSCRIPT_FORMATS } from '../../sources/read-transcript.js';
import { parseJsonLines, type Transcript, type TranscriptFormat } from '../../sources/transcript.js';
import type { CliIo } from '../cli-io.js';
import { requireAgentName } from '../agent-name-option.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { type ConversationInput, isJsonLines, parseConversationInput, parseFormatOption, readInputText, resolveTarget } from '../read-conversation-input.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { progressBar } from '../render/progress-bar.js';
import { print, type StoreCommandFlags, type TargetFlags } from './store-commands.js';
import { planSyncImport } from './sync-import.js';
import { isExportHeader, readExportLines } from './history-jsonl.js';

/** Imports of at least this many messages show progress bars (on a terminal). */
const PROGRESS_FROM_MESSAGES = 2000;

/** Flags of `import`. */
export interface ImportFlags extends StoreCommandFlags, TargetFlags {
  readonly format?: string | undefined;
  readonly agent?: string | undefined;
  readonly strict?: boolean | undefined;
  /** With `agent`: append only the messages of the body the agent does not hold yet. */
  readonly sync?: boolean | undefined;
  /** A name for the agent, shown by `agents`. */
  readonly name?: string | undefined;
}

/** A conversation ready to store: a provider body or message array, or an agent transcript. */
export type ImportInput =
  | (ConversationInput & { /** When each message was written, for an export read back. */ readonly createdAt?: readonly (Date | undefined)[] | undefined })
  | (Transcript & { readonly detected: boolean });

/** The model an import is counted for: the flags', else the input's, else the default. */
function importTarget(input: ImportInput, flags: TargetFlags) {
  if (!('brokenLines' in input)) return resolveTarget(input, flags);
  const model = typeof input.options.model === 'string' ? input.options.model : undefined;
  return { provider: flags.provider ?? (input.format === 'claude-code' ? 'anthropic' : 'openai'), model: flags.model ?? model ?? 'gpt-4o' };
}

/**
 * The request options (`temperature`, `max_tokens`, Anthropic system blocks, …) a provider body
 * came with, kept with a new agent so that `window --agent --body` sends them as the file would.
 */
function requestOptionsMeta(input: ImportInput): { requestOptions?: Readonly<Record<string, unknown>> } {
  return 'brokenLines' in input || Object.keys(input.options).length === 0 ? {} : { requestOptions: input.options };
}

/** Reads a JSONL transcript line by line (a large file is streamed, with a progress bar). */
async function readTranscriptFile(io: CliIo, file: string, flags: ImportFlags, format: TranscriptFormat | undefined): Promise<ImportInput> {
  const lines: string[] = [];
  try {
    const total = file === '-' ? 0 : await io.fileSize(file);
    const bar = progressBar(io.stderrIsTerminal === true && total >= 4_000_000 ? (text) => io.stderr.write(text) : undefined, 'reading ', total);
    let bytes = 0;
    for await (const line of io.readLines(file)) {
      lines.push(line);
      bytes += Buffer.byteLength(line) + 1;
      bar.update(Math.min(bytes, total));
    }
    bar.finish();
    if (isExportHeader(lines[0])) return readExportLines(lines, file === '-' ? 'stdin' : file);
  } catch (error) {
    if (error instanceof SlidingContextError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INPUT_UNREADABLE', `Cannot read ${file}: ${reason}.`, { cause: error });
  }
  const source = file === '-' ? 'stdin' : file;
  return readTranscript(parseJsonLines(lines, source), { format, strict: flags.strict, source });
}

/** Reads what `import` was given: a provider body or message array, or an agent transcript. */
async function readImportInput(io: CliIo, file: string, flags: ImportFlags): Promise<ImportInput> {
  const transcriptFormat = TRANSCRIPT_FORMATS.find((format) => format === flags.format);
  if (transcriptFormat || flags.format === 'jsonl' || file.toLowerCase().endsWith('.jsonl')) return readTranscriptFile(io, file, flags, transcriptFormat);
  const text = await readInputText(io, file);
  const source = file === '-' ? 'stdin' : file;
  if ((flags.format === undefined || flags.format === 'jsonl') && isExportHeader(text.slice(0, text.indexOf('\n')))) return readExportLines(text.split('\n'), source);
  if (flags.format === undefined && isJsonLines(text)) {
    return readTranscript(parseJsonLines(text.split('\n'), source), { strict: flags.strict, source });
  }
  return parseConversationInput(text, source, parseFormatOption(flags.format));
}

/**
 * `import <file>`: stores a conversation as a new agent, or appends it to one. It reads provider
 * bodies in every wire format and message arrays, and the transcripts agents leave on disk:
 * Claude Code sessions and Codex rollouts (JSONL). Broken transcript lines are reported by line
 * number and the rest imported; `--strict` imports nothing if any line is broken. One
 * transaction either way, the new agent included: an interrupt (Ctrl-C, SIGTERM) before it
 * commits rolls it back, and the process exits 130 or 143 once it has.
 */
export async function runImportCommand(file: string, flags: ImportFlags, io: CliIo): Promise<void> {
  requireAgentName(flags.name, 'import');
  if (flags.sync === true && flags.agent === undefined) {
    throw new SlidingContextError('INVALID_OPTION', 'import --sync: name the agent to sync with --agent <id>.');
  }
  const interrupt = new AbortController();
  let importing: Promise<void> | undefined;
  const cancel = io.onInterrupt(async () => {
    interrupt.abort();
    // The process exits only once the transaction has rolled back.
    await importing?.catch(() => undefined);
  });
  try {
    importing = importFile(file, flags, io, interrupt.signal);
    await importing;
  } finally {
    cancel();
  }
}

/** {@link runImportCommand}'s work; `signal` aborts the storing transaction. */
async function importFile(file: string, flags: ImportFlags, io: CliIo, signal: AbortSignal): Promise<void> {
  const input = await readImportInput(io, file, flags);
  // Appending to an agent needs the store it is in: only a new agent may create one.
  await withCliStore(io, flags, (store) => importConversation(store, input, flags, io, signal), { create: flags.agent === undefined });
}

/**
 * Stores what `import` read in an open store, as a new agent or after `flags.agent` (with
 * `flags.sync`, only what the agent does not hold yet), and prints the agent id (and the JSON
 * report with `--json`). Nothing is written if the conversation is broken; `signal` aborts the
 * storing transaction.
 */
export async function importConversation(store: HistoryStore, input: ImportInput, flags: ImportFlags, io: CliIo, signal?: AbortSignal): Promise<string> {
  const counted = importTarget(input, flags);
  const counter = await loadCliCounter(io, counted.provider, counted.model);
  const showProgress = io.stderrIsTerminal === true && input.messages.length >= PROGRESS_FROM_MESSAGES;
  const write = showProgress ? (text: string) => io.stderr.write(text) : undefined;
  const brokenLines = 'brokenLines' in input ? input.brokenLines : [];
  const skippedCounts = 'skipped' in input ? input.skipped : {};
  for (const broken of brokenLines) io.stderr.write(`line ${broken.line}: skipped, ${broken.reason}\n`);
  // Check the conversation as a whole, after what the agent already holds, before anything is
  // written: an import is all or nothing.
  const sync = flags.sync === true && flags.agent !== undefined
    ? await planSyncImport(store, flags.agent, { messages: input.messages, system: 'system' in input ? input.system : undefined, tools: 'tools' in input ? input.tools : undefined })
    : undefined;
  const messages = sync ? sync.newMessages : input.messages;
  const earlier = flags.agent === undefined ? [] : (await store.history(flags.agent)).map((entry) => entry.message);
  requireValidConversation(applyEvents([...earlier, ...messages]));
  const counting = progressBar(write, 'counting', messages.length);
  const counts = messages.map((message, index) => {
    counting.update(index + 1);
    return message.role === 'event' ? null : counter.countMessage({ ...counted, message });
  });
  counting.finish();
  const settings = { system: input.system, tools: input.tools };
  const storing = progressBar(write, 'storing ', messages.length);
  const onProgress = (done: number) => {
    storing.update(done);
  };
  const storeOptions = { counts, countTarget: counted, onProgress, ...(signal ? { signal } : {}) };
  // An export read back keeps when each message was written, as a new agent's history.
  const createdAt = 'createdAt' in input && flags.agent === undefined ? { createdAt: input.createdAt } : {};
  // A new agent is created with its messages in one transaction: never an agent with part of them.
  const preambleTokens = () => counter.countPreamble({ ...counted, ...settings });
  const meta = () => ({ ...newAgentMeta(counted, settings, preambleTokens()), format: input.format, ...requestOptionsMeta(input) });
  const appendTo = async (agentId: string) => {
    if (flags.name !== undefined) await store.renameAgent(agentId, flags.name);
    // A sync with nothing new writes nothing.
    const { lastSeq } = messages.length === 0 && sync
      ? { lastSeq: await store.lastSeq(agentId) }
      : await store.append(agentId, messages, storeOptions);
    return { agentId, lastSeq };
  };
  const { agentId, lastSeq } = flags.agent === undefined
    ? await store.createAgentWithMessages(meta(), messages, { ...storeOptions, ...createdAt, name: flags.name })
    : await appendTo(flags.agent);
  storing.finish();
  const skipped = Object.entries(skippedCounts).map(([reason, count]) => `${formatNumber(count)} ${reason}`);
  if (!flags.json) {
    const notes = [
      `${input.format}${input.detected ? ', detected' : ''}`,
      ...(brokenLines.length > 0 ? [`${formatCount(brokenLines.length, 'broken line')} skipped`] : []),
      ...(skipped.length > 0 ? [`left out: ${skipped.join(', ')}`] : []),
      ...(sync ? [`synced: ${formatNumber(sync.heldMessages)} already held`] : []),
    ];
    io.stderr.write(`imported ${formatCount(messages.length, 'message')} (${notes.join('; ')}); last seq ${lastSeq}\n`);
  }
  const json = {
    agentId,
    format: input.format,
    detected: input.detected,
    messages: messages.length,
    brokenLines,
    skipped: skippedCounts,
    ...(sync ? { sync: { heldMessages: sync.heldMessages, appendedMessages: messages.length } } : {}),
  };
  print(io, flags.json, json, agentId);
  return agentId;
}
