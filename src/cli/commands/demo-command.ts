import type { DemoFlags } from './demo-command-line.js';
import { readFile } from 'node:fs/promises';
import { digestSummarizer } from '../../condense/digest-summarizer.js';
import { openConversation } from '../../conversation/conversation.js';
import { detectExchanges } from '../../exchange/detect-exchanges.js';
import { HistoryStore } from '../../store/history-store.js';
import type { CliIo } from '../cli-io.js';
import { expandHomeDirectory } from '../expand-home-directory.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { parseConversationInput } from '../read-conversation-input.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { formatCount } from '../render/format-count.js';
import { formatNumber } from '../render/format-number.js';
import { progressBar } from '../render/progress-bar.js';
import { resolveCliBudget } from '../resolve-cli-budget.js';
import { DEFAULT_PROVIDER, defaultModelFor } from '../../tokens/default-target.js';
import { packageFile } from '../package-file.js';
import { print, renderAgentHistory } from './store-commands.js';

/** The bundled session the demo replays: 160 exchanges of a coding agent at work. */
const DEMO_SESSION = packageFile('examples/long-coding-session.json');

/** A budget small enough for the window to slide many times over the bundled session. */
const DEMO_BUDGET_TOKENS = 16_000;

/** The `--exchanges` flag: a whole number from 1 to the session's `available` exchanges, else all of them. */
function exchangeLimit(value: string | undefined, available: number): number {
  if (value === undefined) return available;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1) throw new SlidingContextError('INVALID_OPTION', `--exchanges: expected a whole number of at least 1; got "${value}".`);
  if (limit > available) {
    throw new SlidingContextError('INVALID_OPTION', `--exchanges: the bundled session has ${formatNumber(available)} exchanges; give at most ${formatNumber(available)} (or leave --exchanges out for all of them); got ${value}.`);
  }
  return limit;
}

/**
 * `demo`: replays the bundled session through a Conversation on the embedded PGlite, turn by
 * turn, with the digest summarizer. Each turn's user message is stored and the request checked
 * before the rest of the turn comes in, as a live agent would. Prints the `/history` view with
 * the rule, the summary of what was evicted, and the totals.
 */
export async function runDemoCommand(flags: DemoFlags, io: CliIo): Promise<void> {
  const session = parseConversationInput(await readFile(DEMO_SESSION, 'utf8'), 'the bundled session');
  const sessionExchanges = detectExchanges(session.messages);
  const exchanges = sessionExchanges.slice(0, exchangeLimit(flags.exchanges, sessionExchanges.length));
  const provider = flags.provider ?? DEFAULT_PROVIDER;
  const model = flags.model ?? defaultModelFor(provider);
  const budgetTokens = (await resolveCliBudget(io, flags.budget, { provider, model })) ?? DEMO_BUDGET_TOKENS;
  const counter = await loadCliCounter(io, provider, model);
  // In memory unless a directory is given, so that the demo leaves nothing behind.
  const dataDir = flags.dataDir ? expandHomeDirectory(flags.dataDir) : undefined;
  const store = await HistoryStore.open(dataDir === undefined ? { memory: true } : { dataDir });
  const cancel = io.onInterrupt(() => store.close());
  try {
    const conversation = await openConversation({
      store, provider, model, counter, budgetTokens, system: session.system, tools: session.tools,
      condense: { summarizer: digestSummarizer() },
    });
    let evicted = 0;
    let summaries = 0;
    conversation.on((event) => {
      if (event.type === 'exchange-evicted') evicted += event.exchanges;
      if (event.type === 'summary-created') summaries++;
    });
    const leading = session.messages.slice(0, exchanges[0]?.firstMessage ?? session.messages.length);
    if (leading.length > 0) await conversation.append(leading);
    const bar = progressBar(io.stderrIsTerminal === true ? (text) => io.stderr.write(text) : undefined, 'replaying', exchanges.length);
    for (const [index, exchange] of exchanges.entries()) {
      const turn = session.messages.slice(exchange.firstMessage, exchange.lastMessage + 1);
      await conversation.append(turn.slice(0, 1));
      await conversation.request();
      if (turn.length > 1) await conversation.append(turn.slice(1));
      await conversation.endTurn();
      bar.update(index + 1);
    }
    bar.finish();
    const { report } = await conversation.request();
    const view = await conversation.historyView();
    const history = view.exchanges;
    const [stored] = (await store.listAgents()).filter((agent) => agent.agentId === conversation.agentId);
    const totals = {
      agentId: conversation.agentId,
      provider,
      model,
      budgetTokens,
      exchanges: exchanges.length,
      exchangesInWindow: history.filter((entry) => entry.inWindow).length,
      exchangesSummarized: history.filter((entry) => entry.summarized).length,
      evictions: evicted,
      summaries,
      windowTokens: report.totalTokens,
      storedMessages: stored?.messages ?? 0,
      storedTokens: stored?.tokens ?? 0,
      method: report.method,
      exact: report.exact,
    };
    const evictedCount = exchanges.length - totals.exchangesInWindow;
    const inWindow = formatCount(totals.exchangesInWindow, 'exchange');
    const lines = [
      // The window's footer names the counting as the request's report does, as --json gives it.
      renderAgentHistory(conversation.agentId, { ...view, plan: { ...view.plan, method: report.method, exact: report.exact } }),
      `Replayed   ${formatCount(exchanges.length, 'exchange')} (${formatCount(totals.storedMessages, 'message')}) turn by turn, budget ${formatCount(budgetTokens, 'token')}`,
      `Window     ${formatCount(totals.windowTokens, 'token')}: ${view.summary ? `the summary and ${inWindow}` : inWindow}`,
      `Stored     ${formatCount(totals.storedTokens, 'token')} in ${formatCount(totals.storedMessages, 'message')}: nothing was deleted`,
      evictedCount === 0
        ? `Evicted    nothing: every exchange is in the window${evicted > 0 ? ` (${formatCount(evicted, 'eviction')} on the way)` : ''}`
        : `Evicted    ${formatCount(evictedCount, 'exchange')} out of the window: ${formatNumber(totals.exchangesSummarized)} folded into the digest (${formatCount(summaries, 'pass', 'passes')}), ${formatCount(evicted, 'eviction')} on the way`,
      `Counting   ${report.method} for ${provider}/${model}${report.exact ? ', exact' : `, not all exact (${view.summary ? 'some framing and the summary are' : 'some framing is'} estimated)`}`,
      ...(dataDir === undefined ? [] : [`Stored in  ${dataDir}: try \`sliding-context history ${conversation.agentId} --data-dir ${dataDir}\``]),
    ];
    print(io, flags.json, { ...totals, summary: view.summary?.data.text ?? null }, lines.join('\n'));
  } finally {
    cancel();
    await store.close();
  }
}
