import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnthropicCacheServer } from '../../testing/anthropic-cache-server.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('The chat terminal tests are skipped: tmux is not installed.');

const server = await startAnthropicCacheServer({ lookbackBlocks: 0, reply: (index) => `Noted, step ${index + 1}.` });
const work = mkdtempSync(join(tmpdir(), 'sliding-context-chat-cache-'));
const session = `sliding-context-cache-${process.pid}`;
afterAll(async () => {
  spawnSync('tmux', ['kill-session', '-t', session]);
  rmSync(work, { recursive: true, force: true });
  await server.close();
});

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-S', '-100', '-t', session);
async function waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const shown = screen();
    if (pattern.test(shown)) return shown;
    if (Date.now() > until) throw new Error(`the screen never showed ${String(pattern)}; it shows:\n${shown}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const type = (text: string) => {
  tmux('send-keys', '-t', session, '-l', text);
  tmux('send-keys', '-t', session, 'Enter');
};

describe.skipIf(!hasTmux)('the chat and the prompt cache', () => {
  it('marks each request\'s stable prefix, reads the cache from the second request on, and /history shows the cached share', async () => {
    const command = [
      process.execPath, '--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'),
      'chat', '--provider', 'anthropic', '--base-url', server.url, '--budget', '50000', '--data-dir', join(work, 'store'),
    ].map((part) => `'${part}'`).join(' ');
    tmux('new-session', '-d', '-s', session, '-x', '140', '-y', '60', '-c', work, `env -u DATABASE_URL ANTHROPIC_API_KEY=test NO_COLOR=1 ${command}`);
    await waitFor(/^›\s*$/m);
    for (const [index, text] of ['plan the release', 'list the open issues', 'draft the notes'].entries()) {
      type(text);
      await waitFor(new RegExp(`Noted, step ${index + 1}\\.`));
    }
    type('/history');
    const shown = await waitFor(/Prompt cache: \d+% of [\d,]+ input tokens/);
    expect(shown).toMatch(/"draft the notes".*cached \d+%/);

    const bodies = server.received.map((request) => JSON.stringify(request.body));
    expect(bodies).toHaveLength(3);
    for (const outcome of server.outcomes) {
      expect(outcome.breakpoints).toBeGreaterThanOrEqual(2);
      expect(outcome.breakpoints).toBeLessThanOrEqual(4);
    }
    expect(server.outcomes[0]?.cache_creation_input_tokens).toBeGreaterThan(0);
    for (const outcome of server.outcomes.slice(1)) expect(outcome.cache_read_input_tokens).toBeGreaterThan(0);

    // `history` and `history --json` read the same figures from the store.
    const agentId = /agent ([\w:-]+)/.exec(shown)?.[1] ?? '';
    type('/exit');
    // The pane runs the chat alone: it closes when the chat has left.
    for (let tries = 0; tries < 100 && spawnSync('tmux', ['has-session', '-t', session]).status === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'), ...args, '--data-dir', join(work, 'store')], {
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: '' },
      });
    const read = server.outcomes.reduce((sum, outcome) => sum + outcome.cache_read_input_tokens, 0);
    const json = JSON.parse(cli('history', agentId, '--json')) as { cache: Record<string, number>; exchanges: { cache?: Record<string, number> }[] };
    expect(json.cache).toMatchObject({ requests: 3, cacheReadTokens: read });
    expect(json.exchanges.map((exchange) => exchange.cache?.requests)).toEqual([1, 1, 1]);
    expect(cli('history', agentId)).toMatch(/Prompt cache: \d+% of [\d,]+ input tokens read from the cache/);
  }, 180_000);
});
