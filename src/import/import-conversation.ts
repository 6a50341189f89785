import { newAgentMeta } from '../conversation/agent-settings.js';
import { syntheticResultCountsMeta } from '../conversation/synthetic-result-counts.js';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { WireFormat } from '../providers/wire-format-names.js';
import type { BrokenLine, TranscriptFormat } from '../sources/transcript.js';
import type { HistoryStore } from '../store/history-store.js';
import { DEFAULT_PROVIDER, defaultModelFor } from '../tokens/default-target.js';
import type { CountTarget, TokenCounter } from '../tokens/token-counter.js';
import { resolveTarget } from './conversation-input.js';
import { type ImportedConversation, type ImportFormat, type ImportSource, parseImportFormat, readImportInput } from './read-import-input.js';
import { requireValidImport } from './require-valid-import.js';
import { planSyncImport } from './sync-import.js';

/**
 * How far an import has got: `read` once the input is taken apart (its broken lines, the
 * messages it holds), then `counting` and `storing` as each message is counted and written.
 */
export type ImportProgress =
  | { readonly stage: 'read'; readonly messages: number; readonly brokenLines: readonly BrokenLine[] }
  | { readonly stage: 'counting' | 'storing'; readonly done: number; readonly total: number };

/** How {@link importConversation} reads and stores a conversation. */
export interface ImportOptions {
  /** The input's format: `auto` (detected, the default), a wire format, `claude-code`, `codex` or `jsonl`. */
  readonly format?: ImportFormat | undefined;
  /** Import nothing if any transcript line is broken (default: skip broken lines, import the rest). */
  readonly strict?: boolean | undefined;
  /** Append to this agent instead of creating one. */
  readonly agentId?: string | undefined;
  /** With `agentId`: the input is the agent's conversation grown by some turns; append only what it does not hold yet. */
  readonly sync?: boolean | undefined;
  /** A name for the new agent (with `agentId`: renames it). */
  readonly name?: string | undefined;
  /** The provider and model the messages are counted for (default: the input's, else the defaults). */
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  /** The counter for the target (default: the real one, loaded for it). */
  readonly loadCounter?: ((target: CountTarget) => Promise<TokenCounter>) | undefined;
  readonly onProgress?: ((progress: ImportProgress) => void) | undefined;
  /** Aborting it before the storing transaction commits rolls it back (`ABORTED`): nothing is stored. */
  readonly signal?: AbortSignal | undefined;
}

/** What {@link importConversation} stored. */
export interface ImportResult {
  readonly agentId: string;
  /** The wire format of the input (an export read back is `neutral`). */
  readonly format: WireFormat | TranscriptFormat;
  /** True when the format was detected rather than given. */
  readonly detected: boolean;
  /** The messages written (with `sync`, the ones the agent did not hold yet). */
  readonly messages: number;
  /** The agent's last seq after the import. */
  readonly lastSeq: number;
  /** Transcript lines that could not be read, and why. */
  readonly brokenLines: readonly BrokenLine[];
  /** Transcript lines left out on purpose, by reason (`side-chain`, `progress`, …). */
  readonly skipped: Readonly<Record<string, number>>;
  /** With `sync`: how many messages the agent held already, and how many were appended. */
  readonly sync?: { readonly heldMessages: number; readonly appendedMessages: number } | undefined;
  /** The provider and model the messages were counted for. */
  readonly countTarget: CountTarget;
}

/** The model an import is counted for: the one given, else the input's, else the default. */
export function importTarget(input: ImportedConversation, options: Pick<ImportOptions, 'provider' | 'model'>): CountTarget {
  // An export read back names its agent's provider.
  const exported = 'provider' in input && typeof input.provider === 'string' ? input.provider : undefined;
  if (!('brokenLines' in input)) return resolveTarget(input, { provider: options.provider ?? exported, model: options.model });
  const model = typeof input.options.model === 'string' ? input.options.model : undefined;
  const provider = options.provider ?? (input.format === 'claude-code' ? 'anthropic' : DEFAULT_PROVIDER);
  return { provider, model: options.model ?? model ?? defaultModelFor(provider) };
}

/**
 * The request options (`temperature`, `max_tokens`, Anthropic system blocks, …) a provider body
 * came with, kept with a new agent so that its window is sent as the body would be.
 */
function requestOptionsMeta(input: ImportedConversation): { requestOptions?: Readonly<Record<string, unknown>> } {
  return 'brokenLines' in input || Object.keys(input.options).length === 0 ? {} : { requestOptions: input.options };
}

/** Checks the options before anything is read. */
function requireImportOptions(options: ImportOptions): void {
  if (options.sync === true && options.agentId === undefined) {
    throw new SlidingContextError('INVALID_OPTION', 'import: sync needs the agent to sync with (agentId).');
  }
  if (options.name !== undefined && options.name.trim() === '') {
    throw new SlidingContextError('INVALID_OPTION', `import: the name is ${options.name === '' ? 'empty' : 'only spaces'}; give a name with at least one visible character, or none.`);
  }
}

async function loadDefaultCounter(target: CountTarget): Promise<TokenCounter> {
  const { loadTokenCounter } = await import('../tokens/load-token-counter.js');
  return loadTokenCounter({ targets: [target] });
}

/**
 * Stores a conversation in `store` as a new agent, or after `options.agentId` (with `sync`, only
 * what the agent does not hold yet). It reads provider bodies in every wire format, message
 * arrays, JSONL exports, and the transcripts agents leave on disk (Claude Code sessions, Codex
 * rollouts); `input` may also be a conversation already read (`{ conversation }`). Broken
 * transcript lines are reported in the result and the rest stored; `strict` stores nothing if any
 * line is broken. The conversation is checked as a whole, after what the agent holds, before
 * anything is written, and it is written in one transaction, the new agent included.
 * @throws SlidingContextError `INVALID_OPTION`; the input's errors (`INVALID_JSON`, `UNKNOWN_FORMAT`,
 * `INVALID_REQUEST_BODY`, `INVALID_MESSAGE`, `INVALID_TRANSCRIPT`, …); `INVALID_CONVERSATION` and the
 * pairing codes; `SYNC_DIVERGED` or `SYNC_SETTINGS_CHANGED`; `UNKNOWN_AGENT`; `ABORTED`
 */
export async function importConversation(
  store: HistoryStore,
  input: ImportSource | { readonly conversation: ImportedConversation },
  options: ImportOptions = {},
): Promise<ImportResult> {
  requireImportOptions(options);
  const conversation = 'conversation' in input ? input.conversation : readImportInput(input, parseImportFormat(options.format), options.strict);
  const target = importTarget(conversation, options);
  const counter = await (options.loadCounter ?? loadDefaultCounter)(target);
  const brokenLines = 'brokenLines' in conversation ? conversation.brokenLines : [];
  const skipped = 'skipped' in conversation ? conversation.skipped : {};
  const progress = options.onProgress;
  progress?.({ stage: 'read', messages: conversation.messages.length, brokenLines });
  const agentId = options.agentId;
  // Check the conversation as a whole, after what the agent already holds, before anything is
  // written: an import is all or nothing.
  const sync = options.sync === true && agentId !== undefined
    ? await planSyncImport(store, agentId, { messages: conversation.messages, system: conversation.system, tools: conversation.tools })
    : undefined;
  const messages = sync ? sync.newMessages : conversation.messages;
  // A sync has read the agent's history already.
  const earlier = sync ? sync.stored : agentId === undefined ? [] : (await store.history(agentId)).map((entry) => entry.message);
  // A problem is named by its place in what was read: a sync appends the end of it.
  const unanswered = requireValidImport(earlier, messages, conversation.messages.length - messages.length);
  progress?.({ stage: 'counting', done: 0, total: messages.length });
  const counts = messages.map((message, index) => {
    progress?.({ stage: 'counting', done: index + 1, total: messages.length });
    return message.role === 'event' ? null : counter.countMessage({ ...target, message });
  });
  const settings = { system: conversation.system, tools: conversation.tools };
  const onProgress = (done: number) => progress?.({ stage: 'storing', done, total: messages.length });
  const storeOptions = { counts, countTarget: target, onProgress, ...(options.signal ? { signal: options.signal } : {}) };
  // An export read back keeps when each message was written, as a new agent's history.
  const createdAt = 'createdAt' in conversation && agentId === undefined ? { createdAt: conversation.createdAt } : {};
  const preambleTokens = () => counter.countPreamble({ ...target, ...settings });
  // The counts of the synthetic results for calls left open let the agent's window be planned without a tokenizer.
  const meta = () => ({
    ...newAgentMeta(target, settings, preambleTokens()),
    // An export read back keeps the format its agent's requests were built in.
    format: 'agentFormat' in conversation && conversation.agentFormat !== undefined ? conversation.agentFormat : conversation.format,
    ...requestOptionsMeta(conversation),
    ...syntheticResultCountsMeta(unanswered, counter, target),
  });
  const appendTo = async (id: string) => {
    if (options.name !== undefined) await store.renameAgent(id, options.name);
    // A sync with nothing new writes nothing.
    const { lastSeq } = messages.length === 0 && sync ? { lastSeq: await store.lastSeq(id) } : await store.append(id, messages, storeOptions);
    return { agentId: id, lastSeq };
  };
  onProgress(0);
  // A new agent is created with its messages in one transaction: never an agent with part of them.
  const stored = agentId === undefined
    ? await store.createAgentWithMessages(meta(), messages, { ...storeOptions, ...createdAt, name: options.name })
    : await appendTo(agentId);
  return {
    agentId: stored.agentId,
    format: conversation.format,
    detected: conversation.detected,
    messages: messages.length,
    lastSeq: stored.lastSeq,
    brokenLines,
    skipped,
    ...(sync ? { sync: { heldMessages: sync.heldMessages, appendedMessages: messages.length } } : {}),
    countTarget: target,
  };
}
