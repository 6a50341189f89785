import { isSummaryMessage } from '../../condense/stored-summary.js';
import { digestSummarizer } from '../../condense/digest-summarizer.js';
import { type Conversation, type ExchangeHistory, openConversation, type OpenConversationOptions, type PlannedHistory } from '../../conversation/conversation.js';
import { redactSecrets } from '../../errors/redact-secrets.js';
import { applyEventsTo } from '../../message/apply-events.js';
import type { ModelMessage, ToolResultPart } from '../../message/message.js';
import type { ChatClient } from '../../providers/chat-client.js';
import { toolCallsOf } from '../../exchange/tool-parts.js';
import type { HistoryStore } from '../../store/history-store.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { validateBudgetTokens } from '../../window/budget-tokens.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { overBudgetNote } from '../render/over-budget-note.js';
import { neutralizeControlCharacters } from '../render/neutralize-control-characters.js';
import { renderLossReport } from '../render/loss-report-text.js';
import { renderAgentHistory } from '../commands/store-commands.js';
import { reachableMarks } from '../../conversation/reachable-marks.js';
import { renderMarksList } from '../render/marks-list.js';
import type { ToolContext } from './chat-tools.js';
import { answerToolCall } from './answer-tool-call.js';
import { runChatPinCommand } from './chat-pin-command.js';
import { runChatUncompactCommand } from './chat-uncompact-command.js';
import { messageLines, renderScrollback, type ScrollbackStyle } from './render-scrollback.js';

/** What the chat writes to and asks with: the terminal, in the command; strings, in tests. */
export interface ChatTerminal {
  write(text: string): void;
  /** Clears the screen and its scrollback before a redraw (a no-op off a terminal). */
  clear(): void;
  confirm(question: string): Promise<boolean>;
  readonly style: ScrollbackStyle;
}

/** Everything a chat needs that it does not make itself. */
export interface ChatSessionOptions {
  readonly store: HistoryStore;
  readonly conversation: Omit<OpenConversationOptions, 'store' | 'counter' | 'model' | 'agentId'>;
  readonly model: string;
  readonly agentId?: string | undefined;
  readonly loadCounter: (model: string) => Promise<TokenCounter>;
  /** Makes the provider's client; throws (a one-line error) when its key is missing. */
  readonly client: () => Promise<ChatClient>;
  readonly tools: ToolContext;
  readonly terminal: ChatTerminal;
}

const HELP = `Commands:
  /history          the exchanges out of and in the window, with their tokens
  /clear            clear the window (the history keeps everything)
  /mark [label]     set a mark to rewind to
  /rewind [label]   go back to a mark (default: the latest)
  /marks            the marks a rewind can reach
  /pin [seq]        pin a message (default: your last): sent word for word in every window
  /unpin seq        unpin a pinned message
  /fork             continue in a child agent that sees the history so far
  /compact [focus]  condense the history now, with a preview first (focus: what to keep above all)
  /uncompact        undo the latest compaction (the summary stays in the history)
  /budget N         change the token budget
  /model M          switch the model (counts follow it)
  /retry            ask the model again about your last message (after an error)
  /tokens           what the next request holds: system, tools, summary, window
  /help             this list
  /exit             leave (Ctrl-D too)`;

/** Tool-loop steps within one turn before the chat stops asking the model. */
const MAX_STEPS = 25;

/**
 * The chat's state: the conversation it holds, the model, and where the rule was last drawn. Each
 * line typed is a turn or a slash command; the user's message is stored before the model is called,
 * so nothing typed is lost when the call fails.
 */
export class ChatSession {
  #conversation!: Conversation;
  #model: string;
  #counter!: TokenCounter;
  #drawnCutoff: string | undefined;
  #call: AbortController | undefined;
  /** What `/help` and `/tokens` printed, by the count of visible messages before it: a redraw shows it again. */
  #notes = new Map<number, string[]>();
  readonly #options: ChatSessionOptions;

  private constructor(options: ChatSessionOptions) {
    this.#options = options;
    this.#model = options.model;
  }

  /** Opens (or resumes) the agent and draws its scrollback. */
  static async start(options: ChatSessionOptions): Promise<ChatSession> {
    const session = new ChatSession(options);
    await session.#open(options.agentId);
    await session.redraw();
    return session;
  }

  get agentId(): string {
    return this.#conversation.agentId;
  }

  async #open(agentId: string | undefined, budgetTokens?: number): Promise<void> {
    this.#counter = await this.#options.loadCounter(this.#model);
    this.#conversation = await openConversation({
      ...this.#options.conversation,
      ...(budgetTokens === undefined ? {} : { budgetTokens }),
      store: this.#options.store,
      agentId,
      model: this.#model,
      counter: this.#counter,
      condense: this.#options.conversation.condense ?? { summarizer: digestSummarizer() },
      // The model can search what left its window, and read a cleared tool output back.
      recall: this.#options.conversation.recall ?? true,
    });
  }

  /** Draws the whole scrollback again, with the rule at the current cutoff. */
  async redraw(view?: PlannedHistory): Promise<void> {
    const { terminal } = this.#options;
    const entries = applyEventsTo(await this.#options.store.history(this.agentId), (entry) => entry.message);
    const { exchanges } = view ?? (await this.#conversation.historyView());
    terminal.clear();
    terminal.write(`sliding-context chat · agent ${this.agentId} · ${neutralizeControlCharacters(`${this.#options.conversation.provider}/${this.#model}`)} · budget ${formatCount(this.#conversation.settings.budgetTokens, 'token')} · /help\n`);
    terminal.write(`${renderScrollback(entries.map((entry) => entry.message as ModelMessage), exchanges, terminal.style, this.#notes).join('\n')}\n`);
    this.#drawnCutoff = cutoffOf(exchanges);
  }

  /** A message as the scrollback draws it. */
  #show(message: ModelMessage): void {
    const lines = messageLines(message, this.#options.terminal.style);
    if (lines.length > 0) this.#options.terminal.write(`${lines.join('\n')}\n`);
  }

  /** Redraws when the cutoff moved since the last drawing (a pruning turn, a clear, a rewind). */
  async #redrawIfMoved(): Promise<void> {
    const view = await this.#conversation.historyView();
    if (cutoffOf(view.exchanges) !== this.#drawnCutoff) await this.redraw(view);
  }

  /** Stops the model's answer in progress, if any; true when there was one. */
  interrupt(): boolean {
    if (!this.#call) return false;
    this.#call.abort();
    return true;
  }

  /** Handles one typed line; false when the chat should end. */
  async handle(line: string): Promise<boolean> {
    const text = line.trim();
    if (text === '') return true;
    try {
      if (text.startsWith('/')) return await this.#command(text);
      await this.#turn(text);
    } catch (error) {
      this.#options.terminal.write(`error: ${shownError(error)}\n`);
    }
    return true;
  }

  async #turn(text: string): Promise<void> {
    // Stored before the call: a failing provider loses nothing typed.
    await this.#conversation.append([{ role: 'user', content: text }]);
    await this.#answer();
  }

  /** The stored messages of this agent, events applied. */
  async #storedMessages(): Promise<ModelMessage[]> {
    return applyEventsTo(await this.#options.store.history(this.agentId), (entry) => entry.message).map((entry) => entry.message as ModelMessage);
  }

  /** Asks the model to answer the history as stored, and runs the tools it calls. */
  async #answer(): Promise<void> {
    const { terminal } = this.#options;
    let client: ChatClient;
    try {
      client = await this.#options.client();
    } catch (error) {
      terminal.write(`error: ${shownError(error)}\n`);
      return;
    }
    let usage: unknown;
    for (let step = 0; step < MAX_STEPS; step++) {
      this.#call = new AbortController();
      const { signal } = this.#call;
      let reply;
      // Streamed as the scrollback draws it: the answer's lines indented by two spaces.
      const shown = { started: false, text: '' };
      const show = (piece: string) => {
        terminal.write(`${shown.started ? '' : '  '}${neutralizeControlCharacters(piece).replaceAll('\n', '\n  ')}`);
        shown.started = true;
        shown.text += piece;
      };
      try {
        reply = await this.#conversation.send((request) => client.stream(request, show, signal));
      } catch (error) {
        terminal.write(`${shown.started ? '\n' : ''}error: ${signal.aborted ? 'interrupted' : shownError(error).split('\n')[0] ?? ''}\n`);
        // What was read of the answer is kept, marked: it was seen, and the history says it was cut.
        if (shown.text !== '') await this.#conversation.append([interruptedReply(shown.text)]);
        return;
      } finally {
        this.#call = undefined;
      }
      if (signal.aborted) {
        // The SDK may end a stream cut by an abort as if it were done: the reply is the part read.
        terminal.write(`${shown.started ? '\n' : ''}error: interrupted\n`);
        if (shown.text !== '') await this.#conversation.append([interruptedReply(shown.text)]);
        return;
      }
      usage = reply.usage;
      if (shown.started) terminal.write('\n');
      await this.#conversation.append([reply.message]);
      const calls = toolCallsOf(reply.message);
      if (calls.length === 0) break;
      const results: ToolResultPart[] = [];
      for (const { part } of calls) {
        this.#show({ role: 'assistant', content: [part] });
        const result = await answerToolCall(part, this.#conversation, this.#options.tools);
        this.#show({ role: 'tool', content: [result] });
        results.push(result);
      }
      await this.#conversation.append([{ role: 'tool', content: results }]);
      if (step === MAX_STEPS - 1) terminal.write(`(stopped after ${MAX_STEPS} tool steps: say "go on" to continue)\n`);
    }
    await this.#conversation.endTurn({ usage });
    await this.#redrawIfMoved();
  }

  async #command(text: string): Promise<boolean> {
    const [name, ...rest] = text.slice(1).split(/\s+/);
    const argument = rest.join(' ').trim() || undefined;
    const { terminal } = this.#options;
    switch (name) {
      case 'exit':
      case 'quit':
        return false;
      case 'help':
        await this.#note(text, HELP);
        return true;
      case 'history':
        terminal.write(renderAgentHistory(this.agentId, await this.#conversation.historyView()));
        return true;
      case 'clear':
        await this.#conversation.clear();
        await this.redraw();
        return true;
      case 'mark': {
        const label = argument ?? `mark-${this.#conversation.marks.length + 1}`;
        await this.#conversation.mark(label);
        terminal.write(`mark "${label}" set\n`);
        return true;
      }
      case 'marks':
        terminal.write(renderMarksList(this.agentId, reachableMarks((await this.#options.store.timeline(this.agentId)).entries), new Date()));
        return true;
      case 'rewind': {
        const label = argument ?? this.#conversation.marks.at(-1);
        if (label === undefined) {
          terminal.write('error: no mark to rewind to; set one with /mark\n');
          return true;
        }
        await this.#conversation.rewind(label);
        // What was printed after the messages the rewind took out goes with them.
        const kept = (await this.#storedMessages()).length;
        for (const at of this.#notes.keys()) if (at > kept) this.#notes.delete(at);
        await this.redraw();
        terminal.write(`rewound to "${label}"\n`);
        return true;
      }
      case 'pin':
      case 'unpin':
        terminal.write(`${await runChatPinCommand(name, argument, this.#options.store, this.#conversation)}\n`);
        return true;
      case 'fork': {
        const parent = this.agentId;
        this.#conversation = await this.#conversation.fork();
        await this.redraw();
        terminal.write(`forked: now in agent ${this.agentId}\n  (the parent, ${parent}, is unchanged)\n`);
        return true;
      }
      case 'compact': {
        const preview = await this.#conversation.compact({ dryRun: true, focus: argument });
        if (preview.summary === null) {
          terminal.write(preview.fallback ? `nothing condensed: ${preview.fallback} (${shownError(preview.fallbackDetail ?? '')})\n` : 'nothing to condense yet\n');
          return true;
        }
        terminal.write(`${neutralizeControlCharacters(preview.summary)}\n\n${renderLossReport(preview.dropped)}\n\n${formatCount(preview.coveredExchanges, 'exchange')}: ${formatNumber(preview.tokensBefore)} → ${formatNumber(preview.tokensAfter)} tokens\n`);
        if (await terminal.confirm('Replace them with this summary?')) {
          await this.#conversation.compact({ focus: argument });
          await this.redraw();
        }
        return true;
      }
      case 'uncompact': {
        const done = await runChatUncompactCommand(this.#conversation);
        await this.redraw();
        terminal.write(`${done}\n`);
        return true;
      }
      case 'budget': {
        await this.#conversation.setBudgetTokens(validateBudgetTokens(argument, '/budget'));
        await this.redraw();
        return true;
      }
      case 'model': {
        if (!argument) {
          terminal.write(`model: ${this.#model}\n`);
          return true;
        }
        this.#model = argument;
        // The budget set by /budget is this chat's, not the model's: a switch keeps it.
        await this.#open(this.agentId, this.#conversation.settings.budgetTokens);
        await this.redraw();
        return true;
      }
      case 'retry': {
        // The message is stored once: the model is asked again about the history as it stands.
        const last = (await this.#storedMessages()).at(-1);
        if (last?.role !== 'user') {
          terminal.write('error: nothing to retry: the last message has its answer; type a new one\n');
          return true;
        }
        this.#show(last);
        await this.#answer();
        return true;
      }
      case 'tokens':
        await this.#note(text, (await this.#tokens()).replace(/\n$/, ''));
        return true;
      default:
        terminal.write(`error: no command /${name ?? ''}; /help lists them\n`);
        return true;
    }
  }

  /** Writes a command's output and keeps it, with the command, where it was in the history. */
  async #note(command: string, output: string): Promise<void> {
    this.#options.terminal.write(`${output}\n`);
    const at = (await this.#storedMessages()).length;
    const lines = [...(this.#notes.get(at) ?? []), ...messageLines({ role: 'user', content: command }, this.#options.terminal.style), ...output.split('\n'), ''];
    this.#notes.set(at, lines);
  }

  /** `/tokens`: what the next request holds, part by part. */
  async #tokens(): Promise<string> {
    const { report } = await this.#conversation.request();
    const target = { provider: report.provider, model: report.model };
    const { system, tools } = this.#conversation.settings;
    const systemTokens = this.#counter.countPreamble({ ...target, system }).tokens;
    const withTools = this.#counter.countPreamble({ ...target, system, tools }).tokens;
    const summary = report.messages.filter(isSummaryMessage).reduce((sum, message) => sum + this.#counter.countMessage({ ...target, message }).tokens, 0);
    const rows: [string, number][] = [
      ['system prompt', systemTokens],
      ['tool definitions', withTools - systemTokens],
      ['summary', summary],
      ['window messages', report.totalTokens - withTools - summary],
      ['total', report.totalTokens],
    ];
    const { budgetTokens } = this.#conversation.settings;
    const working = report.budgetTokens === budgetTokens ? '' : `; ${formatNumber(report.budgetTokens)} after the margin reported usage asks for`;
    const budget = budgetTokens === 0 ? 'no budget' : `budget ${formatNumber(budgetTokens)}${working}`;
    // Over budget (the preamble alone, or the latest exchange, passes it): said, as `window` says it.
    const over = report.overBudget ? `  ${overBudgetNote(report)}\n` : '';
    return `${rows.map(([label, tokens]) => `  ${label.padEnd(18)}${formatNumber(tokens).padStart(10)}`).join('\n')}\n  ${budget}\n${over}  ${report.method} · ${report.exact ? 'exact' : 'estimated in part'}${report.calibrated.tokens === report.totalTokens ? '' : ` · ${formatNumber(report.calibrated.tokens)} as the provider counts`}\n`;
  }
}

/** Where the window begins: the first exchange in it (`top` while nothing has left it). */
function cutoffOf(exchanges: readonly ExchangeHistory[]): string {
  if (exchanges.every((exchange) => exchange.inWindow)) return 'top';
  const first = exchanges.find((exchange) => exchange.inWindow && !exchange.pinned);
  return first ? `${first.agentId}:${first.firstSeq}` : 'none';
}

/** An error as the chat shows it: keys and tokens a provider echoed taken out, control characters shown. */
function shownError(error: unknown): string {
  return neutralizeControlCharacters(redactSecrets(error instanceof Error ? error.message : String(error)));
}

/** The part of an answer that came before the stream stopped, marked as interrupted. */
function interruptedReply(text: string): ModelMessage {
  return { role: 'assistant', content: [{ type: 'text', text }], providerOptions: { 'sliding-context': { interrupted: true } } };
}
