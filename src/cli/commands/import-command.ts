import type { ImportFlags } from './import-command-line.js';
import { isSlidingContextError, SlidingContextError } from '../../errors/sliding-context-error.js';
import { importConversation as importIntoStore, type ImportResult, importTarget } from '../../import/import-conversation.js';
import { type ImportedConversation, readImportInput } from '../../import/read-import-input.js';
import { requireValidImport } from '../../import/require-valid-import.js';
import { isModelMessage } from '../../message/message.js';
import type { HistoryStore } from '../../store/history-store.js';
import type { CountTarget } from '../../tokens/token-counter.js';
import { TRANSCRIPT_FORMATS } from '../../sources/read-transcript.js';
import type { CliIo } from '../cli-io.js';
import { requireAgentName } from '../agent-name-option.js';
import { loadCliCounter, preloadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { parseFormatOption, readInputText } from '../read-conversation-input.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { type ProgressBar, progressBar } from '../render/progress-bar.js';
import { print } from './store-commands.js';

/** Imports of at least this many messages show progress bars (on a terminal). */
const PROGRESS_FROM_MESSAGES = 2000;

/** A conversation ready to store: a provider body or message array, an export read back, or an agent transcript. */
export type ImportInput = ImportedConversation;

/** Reads a JSONL file line by line (a large file is streamed, with a progress bar). */
async function readFileLines(io: CliIo, file: string): Promise<string[]> {
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
    return lines;
  } catch (error) {
    // Bytes that are not UTF-8 were named as such.
    if (isSlidingContextError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new SlidingContextError('INPUT_UNREADABLE', `Cannot read ${file}: ${reason}.`, { cause: error });
  }
}

/**
 * Reads what `import` was given, before any store is opened: the lines of a JSONL file (an
 * export or a transcript), else the text of a provider body, a message array or JSON lines.
 */
async function readImportFile(io: CliIo, file: string, flags: ImportFlags): Promise<ImportInput> {
  const source = file === '-' ? 'stdin' : file;
  const transcriptFormat = TRANSCRIPT_FORMATS.find((format) => format === flags.format);
  if (transcriptFormat || flags.format === 'jsonl' || file.toLowerCase().endsWith('.jsonl')) {
    return readImportInput({ lines: await readFileLines(io, file), source }, transcriptFormat ?? 'auto', flags.strict);
  }
  const text = await readInputText(io, file);
  return readImportInput({ text, source }, parseFormatOption(flags.format), flags.strict);
}

/**
 * `import <file>`: stores a conversation as a new agent, or appends it to one. It reads provider
 * bodies in every wire format and message arrays, and the transcripts agents leave on disk:
 * Claude Code sessions and Codex rollouts (JSONL). Broken transcript lines are reported by line
 * number and the rest imported; `--strict` imports nothing if any line is broken. One
 * transaction either way, the new agent included: an interrupt (Ctrl-C, SIGTERM) before it
 * commits rolls it back, and the process exits 130 or 143 once it has; one that comes too late
 * to stop the commit leaves the import stored, and the process exits 0.
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
    // The process exits only once the transaction has rolled back; one that committed first (the
    // interrupt waited for a long statement) is stored, its id printed: the import succeeded.
    const stored = await importing?.then(() => true, () => false);
    if (!stored) return;
    io.stderr.write('interrupted after the import was stored: it stays stored\n');
    return 'finished';
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
  const input = await readImportFile(io, file, flags);
  // An empty array or body would make an agent with nothing in it: refused before a store is opened.
  // Events alone (a transcript's titles and summaries become marks) are nothing a model is sent either.
  if (!input.messages.some(isModelMessage)) {
    const events = input.messages.length === 0 ? '' : ` (only ${formatCount(input.messages.length, 'event')}, such as marks)`;
    throw new SlidingContextError('INVALID_CONVERSATION', `${file === '-' ? 'stdin' : file} holds no messages to import${events}; nothing was stored.`);
  }
  // A new agent's conversation is checked before the store is opened: a refused import creates no store either.
  if (flags.agent === undefined) requireValidImport([], input.messages);
  // The tokenizer loads while the store opens: each is a good part of a small import's time.
  const loadCounter = preloadCliCounter(io, importTarget(input, flags));
  // Appending to an agent needs the store it is in: only a new agent may create one.
  await withCliStore(io, flags, (store) => importConversation(store, input, flags, io, signal, loadCounter), { create: flags.agent === undefined });
}

/** Progress bars for the counting and storing stages of an import, drawn when `write` is given. */
function importProgressBars(write: ((text: string) => unknown) | undefined) {
  let bar: ProgressBar | undefined;
  let stage: string | undefined;
  return {
    update(next: 'counting' | 'storing', done: number, total: number) {
      if (stage !== next) {
        bar?.finish();
        bar = progressBar(write, next === 'counting' ? 'counting' : 'storing ', total);
        stage = next;
      }
      if (done > 0) bar?.update(done);
    },
    finish() {
      bar?.finish();
    },
  };
}

/** The line `import` writes to stderr when done: what it stored, and from what. */
function importSummary(result: ImportResult): string {
  const skipped = Object.entries(result.skipped).map(([reason, count]) => `${formatNumber(count)} ${reason}`);
  const notes = [
    `${result.format}${result.detected ? ', detected' : ''}`,
    ...(result.brokenLines.length > 0 ? [`${formatCount(result.brokenLines.length, 'broken line')} skipped`] : []),
    ...(skipped.length > 0 ? [`left out: ${skipped.join(', ')}`] : []),
    ...(result.sync ? [`synced: ${formatNumber(result.sync.heldMessages)} already held`] : []),
  ];
  return `imported ${formatCount(result.messages, 'message')} (${notes.join('; ')}); last seq ${result.lastSeq}\n`;
}

/**
 * Stores what `import` read in an open store through the library's `importConversation`, as a
 * new agent or after `flags.agent` (with `flags.sync`, only what the agent does not hold yet),
 * and prints the agent id (and the JSON report with `--json`); broken lines and progress go to
 * stderr. Nothing is written if the conversation is broken; `signal` aborts the storing transaction.
 */
export async function importConversation(
  store: HistoryStore,
  input: ImportInput,
  flags: ImportFlags,
  io: CliIo,
  signal?: AbortSignal,
  loadCounter = (target: CountTarget) => loadCliCounter(io, target.provider, target.model),
): Promise<string> {
  const write = io.stderrIsTerminal === true && input.messages.length >= PROGRESS_FROM_MESSAGES ? (text: string) => io.stderr.write(text) : undefined;
  const bars = importProgressBars(write);
  const result = await importIntoStore(store, { conversation: input }, {
    agentId: flags.agent,
    sync: flags.sync,
    name: flags.name,
    provider: flags.provider,
    model: flags.model,
    signal,
    loadCounter,
    onProgress: (progress) => {
      if (progress.stage === 'read') for (const broken of progress.brokenLines) io.stderr.write(`line ${broken.line}: skipped, ${broken.reason}\n`);
      else bars.update(progress.stage, progress.done, progress.total);
    },
  });
  bars.finish();
  if (!flags.json) io.stderr.write(importSummary(result));
  const json = {
    agentId: result.agentId,
    format: result.format,
    detected: result.detected,
    messages: result.messages,
    brokenLines: result.brokenLines,
    skipped: result.skipped,
    ...(result.sync ? { sync: result.sync } : {}),
  };
  print(io, flags.json, json, result.agentId);
  return result.agentId;
}
