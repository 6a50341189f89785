import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { budgetSetting } from '../cli-settings.js';
import { loadCliConfig } from '../cli-config.js';
import type { CliIo } from '../cli-io.js';
import type { ServeFlags } from './serve-command-line.js';
import { cliStoreLocation } from '../open-cli-store.js';
import { validateWindowPolicy } from '../../window/window-policy.js';

/**
 * The server connections `serve` opens at most: every agent's turn holds one for its write, so
 * agents side by side would queue behind the default 4 (PGlite has one connection whatever this says).
 */
export const SERVE_CONNECTIONS = 16;

function portOf(text: string | undefined): number {
  if (text === undefined) return 8787;
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65_535) throw new SlidingContextError('INVALID_OPTION', `serve --port: expected a port number from 0 to 65535; got "${text}".`);
  return port;
}

/**
 * `serve`: the proxy on the store the flags name, until SIGINT or SIGTERM, which stop it taking
 * requests, wait for those in flight and close the store. While it runs, the CLI's other commands
 * reach a PGlite store through it, as they reach a running chat.
 */
export async function runServeCommand(flags: ServeFlags, io: CliIo): Promise<void> {
  const port = portOf(flags.port);
  const budget = budgetSetting(flags.budget, io.env);
  const policy = flags.policy === undefined ? undefined : validateWindowPolicy(flags.policy, '--policy');
  const modelBudget = budget === 'model' ? ((await loadCliConfig(io)).modelBudget ?? true) : undefined;
  const given = cliStoreLocation(io, flags);
  const location = 'databaseUrl' in given ? { ...given, connections: SERVE_CONNECTIONS } : given;
  const [{ openStoreOrConnect }, { saveHistoryViews }, { startProxy }, { createWebHandler, startWebServer }, { RemoteHistoryStore }] = await Promise.all([
    import('../../store/open-store-or-connect.js'),
    import('../../conversation/history-outline.js'),
    import('../../serve/start-proxy.js'),
    import('../../web/index.js'),
    import('../../store/remote-history-store.js'),
  ]);
  const store = await openStoreOrConnect(location, { saveViews: saveHistoryViews });
  // The web view hears the store's writes: it is served by the process that holds the store.
  const holdsStore = !(store instanceof RemoteHistoryStore);
  if (flags.proxy === false && !holdsStore) {
    await store.close();
    throw new SlidingContextError('STORE_LOCKED', 'serve --no-proxy: another process holds this PGlite store; open the web view in that process (sliding-context serve), or stop it first.');
  }
  let running: { readonly url: string; close(): Promise<void> };
  try {
    if (flags.proxy === false) {
      const web = await startWebServer({ store, host: flags.host, port, token: flags.token });
      running = { url: web.url.replace(/\/$/, ''), close: () => web.close() };
    } else {
      const web = holdsStore ? createWebHandler({ store, token: flags.token }) : undefined;
      const proxy = await startProxy({
        store,
        host: flags.host,
        port,
        token: flags.token,
        upstreamOpenAi: flags.upstreamOpenai,
        upstreamAnthropic: flags.upstreamAnthropic,
        budgetTokens: typeof budget === 'number' ? budget : undefined,
        modelBudget,
        policy,
        web,
        onProblem: (problem) => io.stderr.write(`serve: ${problem}\n`),
      });
      running = { url: proxy.url, close: async () => Promise.all([proxy.close(), web?.close()]).then(() => undefined) };
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  const stopped = new Promise<void>((resolve) => {
    io.onInterrupt(async () => {
      await running.close();
      await store.close();
      resolve();
    });
  });
  const where = 'dataDir' in location ? location.dataDir : 'the PostgreSQL server';
  const token = flags.token === undefined ? '' : `, and the header x-sliding-context-token: <token>`;
  const page = flags.token === undefined ? `${running.url}/` : `${running.url}/?token=<token>`;
  io.stdout.write([
    `sliding-context serve: listening on ${running.url} (store: ${where})`,
    ...(flags.proxy === false
      ? []
      : [`  OpenAI clients:    OPENAI_BASE_URL=${running.url}/v1${token}`, `  Anthropic clients: ANTHROPIC_BASE_URL=${running.url}${token}`, '  Keys go upstream as the client sends them.']),
    holdsStore ? `  History in the browser: ${page}` : '  The web view is served by the process that holds the store.',
    '  Ctrl-C stops.',
    '',
  ].join('\n'));
  await stopped;
}
