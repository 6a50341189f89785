import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type LoopbackAnswer, startLoopbackServer } from '../../testing/loopback-server.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('The chat terminal tests are skipped: tmux is not installed.');

const recorded = (name: string): LoopbackAnswer => ({ status: 200, sse: readFileSync(new URL(`../../providers/__fixtures__/streams/${name}.sse`, import.meta.url), 'utf8') });
const lastUserText = (body: unknown) => {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return JSON.stringify(messages.at(-1)?.role === 'user' ? messages.at(-1)?.content : '');
};
// The recorded OpenAI streams: a read_file call when asked to read notes, else a short answer.
const server = await startLoopbackServer(({ path, body }) => {
  if (path.startsWith('/v1/messages')) return recorded('anthropic-stream-text');
  if (lastUserText(body).includes('fail please')) return { status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } } };
  return recorded(lastUserText(body).includes('read notes') ? 'openai-stream-tool-call' : 'openai-stream-text');
});
const work = mkdtempSync(join(tmpdir(), 'sliding-context-chat-'));
writeFileSync(join(work, 'notes.txt'), `${'The invoice service orders by dueDate. '.repeat(60)}\n`);
const session = `sliding-context-test-${process.pid}`;
afterAll(async () => {
  spawnSync('tmux', ['kill-session', '-t', session]);
  rmSync(work, { recursive: true, force: true });
  await server.close();
});

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);
const scrollback = () => tmux('capture-pane', '-p', '-S', '-200', '-t', session);
async function waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const shown = screen();
    if (pattern.test(shown)) return shown;
    if (Date.now() > until) throw new Error(`the screen never showed ${String(pattern)}; it shows:\n${shown}\nwith the scrollback:\n${scrollback()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const type = (text: string) => {
  tmux('send-keys', '-t', session, '-l', text);
  tmux('send-keys', '-t', session, 'Enter');
};
// Each chat runs on its own embedded PGlite directory (DATABASE_URL is unset for it).
const chatCommand = [
  process.execPath, '--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src/cli/main.ts'),
  'chat', '--base-url', `${server.url}/v1`, '--budget', '900', '--data-dir', join(work, 'store'),
].map((part) => `'${part}'`).join(' ');
const lineOf = (shown: string, pattern: RegExp) => shown.split('\n').findIndex((line) => pattern.test(line));

describe.skipIf(!hasTmux)('sliding-context chat, driven through tmux', () => {
  it('streams, runs tools, moves the rule after a pruning turn, shows /history, rewinds, and draws the same after a restart', async () => {
    // A shell in the pane, so that the chat can be left and started again in it.
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '70', '-c', work, 'sh');
    tmux('send-keys', '-t', session, `clear; env -u OPENAI_API_KEY -u DATABASE_URL NO_COLOR=1 ${chatCommand}`, 'Enter');
    // Typed at once, while the chat is still opening: kept for the first prompt.
    type('read notes please');
    let shown = await waitFor(/The tests now pass: I fixed the order in src\/app\.ts\.\n/);
    expect(shown).toMatch(/sliding-context chat · agent [0-9a-f-]{36} · openai\/gpt-4o · budget 900 tokens/);
    // Before any eviction the context begins at the top.
    expect(lineOf(shown, /^── context ──/)).toBeLessThan(lineOf(shown, /read notes please/));
    expect(shown).toMatch(/› read notes please\n {2}⚙ read_file\(\{"path":"notes\.txt"\}\)\n {4}→ read_file: 1 line\n {2}The tests now pass/);

    type('/mark before');
    await waitFor(/mark "before" set/);
    // A failing provider: one line, the chat goes on.
    type('fail please');
    await waitFor(/› fail please\s*\nerror: 500 The server had an error while processing your request\.\s*\n›/);
    // Short turns until the big first exchange no longer fits: the rule moves below it.
    for (let turn = 1; turn <= 6 && lineOf(screen(), /^── context ──/) < lineOf(screen(), /read notes please/); turn++) {
      type(`question ${turn}`);
      await waitFor(new RegExp(`› question ${turn}\\n[^]*The tests now pass[^]*^›\\s*$`, 'm'));
    }
    shown = screen();
    expect(lineOf(shown, /^── context ──/)).toBeGreaterThan(lineOf(shown, /› read notes please/));
    expect(shown).toMatch(/a summary of the exchange above is pinned here/);

    type('/history');
    shown = await waitFor(/Outside the window \(kept in the history\):\n\s+#0 {2}"read notes please"/);
    expect(shown).toMatch(/Summary \(digest\) of exchange #0,/);

    type('/rewind before');
    shown = await waitFor(/rewound to "before"/);
    // The turns after the mark left the scrollback and the window; the summary of the first exchange is set
    // aside, since it would now stand for the latest exchange: the context begins at the top again.
    expect(shown).not.toMatch(/› question 1|› fail please/);
    expect(lineOf(shown, /^── context ──/)).toBeLessThan(lineOf(shown, /› read notes please/));
    expect(shown).not.toMatch(/a summary of/);
    const before = screen().split('\n').filter((line) => !line.startsWith('›') && !line.startsWith('rewound'));

    type('/exit');
    await waitFor(/bye: resume with/);
    // On its way out the chat saves the history outline beside the directory, for `history`.
    // The outline is saved first, then the timeline: wait for both.
    const savedViews = () => (existsSync(join(work, 'store.views')) ? readdirSync(join(work, 'store.views')).length : 0);
    for (const until = Date.now() + 30_000; savedViews() < 2 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 100));
    // The outline and the timeline: `history` then starts without the database.
    expect(readdirSync(join(work, 'store.views')).sort()).toEqual([
      expect.stringMatching(/^history-outline-3\.[0-9a-f-]{36}\.[0-9a-f-]{36}\.json$/),
      expect.stringMatching(/^history-timeline-2\.[0-9a-f-]{36}\.[0-9a-f-]{36}\.json$/),
    ]);
    tmux('send-keys', '-t', session, `clear; env -u OPENAI_API_KEY -u DATABASE_URL NO_COLOR=1 ${chatCommand}`, 'Enter');
    await waitFor(/^›\s*$/m);
    const after = screen().split('\n').filter((line) => !line.startsWith('›') && !line.startsWith('rewound'));
    expect(after.slice(0, 20)).toEqual(before.slice(0, 20));
    expect(after.filter((line) => line.startsWith('── context ──'))).toHaveLength(1);
  }, 180_000);

  it('speaks the Anthropic streaming API the same way', async () => {
    const name = `${session}-anthropic`;
    const command = chatCommand.replace(`'--base-url' '${server.url}/v1'`, `'--provider' 'anthropic' '--base-url' '${server.url}'`).replace(join(work, 'store'), join(work, 'store-anthropic'));
    tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '40', '-c', work, `env -u DATABASE_URL ANTHROPIC_API_KEY=test NO_COLOR=1 ${command}`);
    try {
      await waitForIn(name, /anthropic\/claude-sonnet-4-6/);
      await waitForIn(name, /^›\s*$/m);
      tmux('send-keys', '-t', name, '-l', 'document the flag');
      tmux('send-keys', '-t', name, 'Enter');
      await waitForIn(name, /› document the flag\n {2}Done: the README now documents --verbose\.\n/);
      tmux('send-keys', '-t', name, '-l', '/tokens');
      tmux('send-keys', '-t', name, 'Enter');
      await waitForIn(name, /tool definitions +\d+\n.*\n.*window messages +\d+\n {2}total +\d+\n {2}budget 900(; [\d,]+ after the margin reported usage asks for)?\n {2}claude-2024 estimate · estimated in part · [\d,]+ as the provider counts/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', name]);
    }
  }, 180_000);

  it('a missing key is one line, and the REPL stays alive with the message stored', async () => {
    const name = `${session}-key`;
    const command = chatCommand.replace(`'--base-url' '${server.url}/v1' `, '').replace(join(work, 'store'), join(work, 'store-key'));
    tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '40', '-c', work, `env -u OPENAI_API_KEY -u DATABASE_URL NO_COLOR=1 ${command}`);
    try {
      const at = (pattern: RegExp) => waitForIn(name, pattern);
      await at(/^›\s*$/m);
      // Long enough that a digest of it is smaller than it.
      tmux('send-keys', '-t', name, '-l', `hello there, ${'here is a long paste of a stack trace line; '.repeat(30)}`);
      tmux('send-keys', '-t', name, 'Enter');
      await at(/error: OPENAI_API_KEY is not set: export it, or pass --base-url/);
      const send = (text: string) => {
        tmux('send-keys', '-t', name, '-l', text);
        tmux('send-keys', '-t', name, 'Enter');
      };
      send('/history');
      await at(/#0 {2}"hello there, here is a long paste/);
      // The slash commands that need no provider: each is an event in the stored history.
      send('a second message');
      await at(/› a second message\s*\nerror: OPENAI_API_KEY/);
      send('/compact');
      await at(/Replace them with this summary\? \[y\/N\]/);
      send('y');
      await at(/\(a summary of the exchange above is pinned here\)/);
      send('/budget 5');
      await at(/budget 5 tokens/);
      send('/fork');
      const forked = await at(/forked: now in agent [0-9a-f-]{36}:[0-9a-f-]{36}\n {2}\(the parent, [0-9a-f-]{36}, is unchanged\)/);
      // The child sees the history so far, with the summary its parent had in force.
      expect(forked).toMatch(/› hello there/);
      expect(forked).toMatch(/\(a summary of the exchange above is pinned here\)/);
      send('/clear');
      await at(/budget 5 tokens · \/help\n── context ─+\n\s*\n›\s*$/);
      send('/nope');
      await at(/error: no command \/nope; \/help lists them/);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', name]);
    }
  }, 180_000);
});

async function waitForIn(name: string, pattern: RegExp): Promise<string> {
  const until = Date.now() + 60_000;
  for (;;) {
    const shown = tmux('capture-pane', '-p', '-t', name);
    if (pattern.test(shown)) return shown;
    if (Date.now() > until) throw new Error(`the screen never showed ${String(pattern)}; it shows:\n${shown}\nwith the scrollback:\n${scrollback()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
