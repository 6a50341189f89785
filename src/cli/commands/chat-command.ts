import type { ChatFlags } from './chat-command-line.js';
import { createInterface, type Interface } from 'node:readline';
import { digestSummarizer } from '../../condense/digest-summarizer.js';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { ChatClient } from '../../providers/chat-client.js';
import type { HistoryStore } from '../../store/history-store.js';
import { ChatSession } from '../chat/chat-session.js';
import { chatToolDefinitions } from '../chat/chat-tools.js';
import type { CliIo } from '../cli-io.js';
import { requireAgentName } from '../agent-name-option.js';
import { DEFAULT_PROVIDER, defaultModelFor } from '../../tokens/default-target.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { resolveCliBudget } from '../resolve-cli-budget.js';
import { summaryShareSetting } from '../cli-settings.js';
import { API_KEY_VARIABLES, providerSdk, type ProviderSdk } from '../provider-sdk.js';
import { parseBaseUrl } from '../../providers/parse-base-url.js';

const isChatProvider = (name: string): name is ProviderSdk['provider'] => name in API_KEY_VARIABLES;

const GOOGLE_BASE_URL = 'https://generativelanguage.googleapis.com';
/** What the SDKs say when no answer came: refused, unresolved, timed out. */
const CONNECTION_FAILURE = /^(Connection error|Request timed out|fetch failed)/i;

/** A URL as an error shows it: without a user, password, query or fragment, where a key could ride. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return 'the configured base URL';
  }
}

/** The provider's streaming chat client; a missing key is a one-line error at the first call. */
function clientFactory(provider: ProviderSdk['provider'], flags: ChatFlags, io: CliIo): () => Promise<ChatClient> {
  let made: ChatClient | undefined;
  return async () => {
    if (made) return made;
    let sdk: ProviderSdk;
    try {
      sdk = await providerSdk(provider, io, flags.baseUrl);
    } catch (error) {
      throw new Error(`${(error as Error).message} Your message is stored; send it again once the key is set.`, { cause: error });
    }
    const { chatClientFor } = await import('../../providers/provider-table.js');
    const client = chatClientFor(sdk.provider, sdk.client);
    const url = shownUrl(flags.baseUrl ?? (sdk.provider === 'google' ? GOOGLE_BASE_URL : sdk.client.baseURL));
    made = {
      async stream(request, onText, signal) {
        try {
          return await client.stream(request, onText, signal);
        } catch (error) {
          // The SDKs say only "Connection error.": which server was tried is what a user fixes.
          if (error instanceof Error && CONNECTION_FAILURE.test(error.message)) {
            throw new Error(`${error.message.replace(/\.$/, '')} reaching ${url}: check --base-url and that the server is up.`, { cause: error });
          }
          throw error;
        }
      },
    };
    return made;
  };
}

/** A word as a POSIX shell reads it back: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll('\'', '\'\\\'\'')}'`;
}

/**
 * The command that resumes this chat as printed: the agent, and the store, server, provider and
 * model it was opened with when they are not the defaults. A database URL is left out (it may hold
 * a password); it is read from `DATABASE_URL` again.
 */
function resumeCommand(agentId: string, flags: ChatFlags): string {
  const words = ['sliding-context', 'chat', '--agent', agentId];
  if (flags.dataDir !== undefined) words.push('--data-dir', flags.dataDir);
  if (flags.provider !== undefined && flags.provider !== 'openai') words.push('--provider', flags.provider);
  if (flags.model !== undefined) words.push('--model', flags.model);
  if (flags.baseUrl !== undefined) words.push('--base-url', flags.baseUrl);
  return words.map(shellWord).join(' ');
}

/** The agent this directory chatted with last, if any. */
async function lastAgentFor(store: HistoryStore, cwd: string): Promise<string | undefined> {
  const agents = (await store.listAgents()).sort((a, b) => b.lastActivity.getTime() - a.lastActivity.getTime());
  for (const agent of agents) if ((await store.agentMeta(agent.agentId)).chatCwd === cwd) return agent.agentId;
  return undefined;
}

/**
 * Reads lines from the terminal from the start, so that what is typed while the chat opens is
 * kept for the first prompt. The function it returns shows a prompt and gives the next line, or
 * null once the terminal closes (Ctrl-D).
 */
function lineReader(lines: Interface, output: NodeJS.WritableStream): (prompt: string) => Promise<string | null> {
  const pending: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let closed = false;
  lines.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else pending.push(line);
  });
  lines.on('close', () => {
    closed = true;
    for (const waiter of waiting.splice(0)) waiter(null);
  });
  return (prompt) => {
    // A closed interface refuses a prompt (Node 24 throws); the lines typed ahead are still given.
    if (!closed) {
      lines.setPrompt(prompt);
      lines.prompt();
    } else if (pending.length > 0) {
      output.write(prompt);
    }
    const next = pending.shift();
    if (next !== undefined) {
      // Typed ahead: shown after its prompt, as if typed there.
      output.write(`${next}\n`);
      return Promise.resolve(next);
    }
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiting.push(resolve));
  };
}

/**
 * `chat`: a terminal agent on the library. Its scrollback shows the conversation with the
 * `── context ──` rule at the window's cutoff, redrawn when the cutoff moves and the same after a
 * restart; slash commands are events in the stored history. Off a terminal it reads stdin's lines.
 * @throws SlidingContextError `NOT_A_TERMINAL` with no terminal, or off one when stdin ends before
 * the first line of a new agent (none is made)
 */
export async function runChatCommand(flags: ChatFlags, io: CliIo): Promise<void> {
  requireAgentName(flags.name, 'chat');
  // A base URL that is no http(s) address is refused before the store is opened.
  parseBaseUrl('--base-url', flags.baseUrl);
  const maxSummaryShare = summaryShareSetting(flags.maxSummaryShare);
  const { terminal } = io;
  if (!terminal) throw new SlidingContextError('NOT_A_TERMINAL', 'chat needs a terminal.');
  const provider = flags.provider ?? DEFAULT_PROVIDER;
  if (!isChatProvider(provider)) throw new SlidingContextError('INVALID_OPTION', `--provider must be openai, anthropic or google; got "${provider}".`);
  const model = flags.model ?? defaultModelFor(provider);
  const cwd = io.cwd ?? '.';
  const isTerminal = terminal.output.isTTY === true;
  const lines = createInterface({ input: terminal.input, output: terminal.output, terminal: isTerminal });
  const ask = lineReader(lines, terminal.output);
  const confirm = async (question: string) => (await ask(`${question} [y/N] `))?.trim().toLowerCase() === 'y';
  try {
    await withCliStore(io, flags, async (store) => {
      const agentId = flags.agent ?? (flags.new ? undefined : await lastAgentFor(store, cwd));
      // Off a terminal a new agent is made once a line comes: an input that ends first leaves none behind.
      const firstLine = agentId === undefined && terminal.input.isTTY !== true ? await ask('› ') : undefined;
      if (firstLine === null) {
        throw new SlidingContextError('NOT_A_TERMINAL', 'chat needs a terminal: stdin is not one and ended before any line, so no agent was made; run it in a terminal, or pipe in the lines to send.');
      }
      const write = (text: string) => {
        terminal.output.write(text);
      };
      const session = await ChatSession.start({
        store,
        agentId,
        model,
        conversation: {
          provider,
          budgetTokens: await resolveCliBudget(io, flags.budget, { provider, model }),
          tools: chatToolDefinitions(flags.allowCommands === true),
          system: 'You are a coding agent working in the user\'s project. Use the tools to read files before you answer about them. Be concise.',
          meta: { chatCwd: cwd },
          condense: { summarizer: digestSummarizer(), maxSummaryShare },
        },
        loadCounter: (name) => loadCliCounter(io, provider, name),
        client: clientFactory(provider, flags, io),
        tools: { cwd, allowCommands: flags.allowCommands === true, confirm },
        terminal: {
          write,
          clear: () => {
            if (isTerminal) write('\u001b[3J\u001b[2J\u001b[H');
          },
          confirm,
          style: { width: Math.min(terminal.output.columns ?? 100, 160), color: isTerminal && io.env.NO_COLOR === undefined },
        },
      });
      if (flags.name !== undefined) await store.renameAgent(session.agentId, flags.name);
      // Ctrl-C stops a reply; at the prompt it asks before leaving (a second Ctrl-C leaves).
      // Fields, not variables: the SIGINT handler changes them between the awaits below.
      const state = { busy: false, askingToLeave: false };
      lines.on('SIGINT', () => {
        if (session.interrupt()) return;
        if (state.busy || state.askingToLeave) {
          lines.close();
          return;
        }
        if (lines.line !== '') {
          // A line half typed is dropped, as a shell does.
          lines.write(null, { ctrl: true, name: 'e' });
          lines.write(null, { ctrl: true, name: 'u' });
          return;
        }
        state.askingToLeave = true;
        write('\n');
        lines.setPrompt('Leave the chat? (y/N) ');
        lines.prompt();
      });
      for (let pending = firstLine; ; pending = undefined) {
        const line = pending ?? await ask('› ');
        if (line === null) break;
        if (state.askingToLeave) {
          state.askingToLeave = false;
          if (line.trim().toLowerCase() === 'y') break;
          continue;
        }
        state.busy = true;
        const goOn = await session.handle(line);
        state.busy = false;
        if (!goOn) break;
      }
      // Hand the terminal back at once: what is typed from here on is the shell's.
      lines.close();
      write(`\nbye: resume with \`${resumeCommand(session.agentId, flags)}\`\n`);
    });
  } finally {
    lines.close();
  }
}
