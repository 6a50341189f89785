import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../_test-cli.js';

describe('sliding-context demo', () => {
  it('replays the bundled 160-exchange session turn by turn: the window slides, the digest holds the rest, nothing is deleted', async () => {
    const { stdout, stderr } = await runCli(['demo'], { stderrIsTerminal: true });
    expect(stderr).toMatch(/replaying \[#+\] 160\/160\n/);
    const lines = stdout.split('\n');
    const rule = lines.findIndex((line) => line.startsWith('── context ──'));
    expect(rule).toBeGreaterThan(100);
    expect(lines[rule + 1]).toMatch(/^Cut kept at exchange #\d+: the request fits \([\d,]+ <= budget 16,000\)$/);
    expect(lines[rule + 3]).toMatch(/^Summary \(digest\) of exchanges #0–#\d+, messages 1–\d+ · [\d,]+ tokens · cost 0 in \/ 0 out tokens:$/);
    expect(lines[rule + 4]).toBe('  Earlier in this conversation (a digest of exchanges no longer in the context):');
    expect(stdout).toMatch(/^Prefix stable through exchange #158 \([\d,]+ tokens\): the head the previous request sent too/m);
    expect(stdout).toMatch(/^Replayed {3}160 exchanges \(1,312 messages\) turn by turn, budget 16,000 tokens$/m);
    expect(stdout).toMatch(/^Stored {5}[\d,]+ tokens in 1,312 messages: nothing was deleted$/m);
    expect(stdout).toMatch(/^Counting {3}o200k_base for openai\/gpt-4o/m);
  });

  it('--json gives the totals; --budget and --provider change the run', async () => {
    const run = async (...args: string[]) => JSON.parse((await runCli(['demo', '--json', ...args])).stdout) as Record<string, number | string | boolean>;
    const small = await run();
    expect(small).toMatchObject({ exchanges: 160, storedMessages: 1312, budgetTokens: 16_000, method: 'o200k_base' });
    expect(small.windowTokens).toBeLessThanOrEqual(16_000);
    expect(Number(small.exchangesInWindow) + Number(small.exchangesSummarized)).toBe(160);
    expect(small.storedTokens).toBeGreaterThan(200_000);
    const large = await run('--budget', '60000', '--provider', 'anthropic');
    expect(large).toMatchObject({ budgetTokens: 60_000, provider: 'anthropic', method: expect.stringContaining('estimate') });
    expect(large.exchangesInWindow).toBeGreaterThan(Number(small.exchangesInWindow));
  });

  it('names the counting method in the text as --json does, and counts for the provider\'s own model by default', async () => {
    for (const provider of ['openai', 'anthropic']) {
      const args = ['demo', '--exchanges', '30', '--provider', provider];
      const json = JSON.parse((await runCli([...args, '--json'])).stdout) as { method: string; exact: boolean; model: string };
      const { stdout, stderr } = await runCli(args);
      const footer = stdout.split('\n').find((line) => line.startsWith('Window ') && line.includes(' · '));
      expect(footer).toMatch(new RegExp(` · ${json.method}${json.exact ? ' \\(exact\\)' : ''}$`));
      expect(stdout).toMatch(new RegExp(`^Counting {3}${json.method} for ${provider}/${json.model}`, 'm'));
      expect(stdout).not.toContain('stored summary count');
      expect(json.model).toBe(provider === 'openai' ? 'gpt-4o' : 'claude-sonnet-4-6');
      expect(stderr).not.toMatch(/Unknown model/);
    }
  });

  it('history says of the stored demo what the demo said: the same tokens, method and exactness, the summary included', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-demo-'));
    try {
      const store = ['--data-dir', join(directory, 'store')];
      const demo = JSON.parse((await runCli(['demo', '--json', '--exchanges', '10', '--budget', '1', ...store])).stdout) as Record<string, unknown>;
      // Its last exchange has no tool message (counted inexactly for OpenAI): the window is exact.
      expect(demo).toMatchObject({ exchangesSummarized: 9, exact: true, method: 'o200k_base' });
      const history = JSON.parse((await runCli(['history', String(demo.agentId), '--json', '--budget', '1', ...store])).stdout) as Record<string, unknown>;
      expect({ tokens: history.totalTokens, exact: history.exact, method: history.method }).toEqual({ tokens: demo.windowTokens, exact: demo.exact, method: demo.method });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('keeps the replayed agent under the home directory for --data-dir=~/…, not in a folder named ~', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sliding-context-demo-'));
    const [home, work] = [join(directory, 'home'), join(directory, 'work')];
    mkdirSync(work);
    const cwd = process.cwd();
    // New stores are copied from the template in the cache, which stays where it was.
    vi.stubEnv('XDG_CACHE_HOME', process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'));
    vi.stubEnv('HOME', home);
    process.chdir(work);
    try {
      const { stdout } = await runCli(['demo', '--exchanges', '2', '--data-dir=~/demo-store']);
      expect(stdout).toContain(`Stored in  ${join(home, 'demo-store')}: try`);
      expect(existsSync(join(home, 'demo-store'))).toBe(true);
      expect(existsSync(join(work, '~'))).toBe(false);
    } finally {
      process.chdir(cwd);
      vi.unstubAllEnvs();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses --exchanges above the 160 the bundled session has, naming the maximum', async () => {
    await expect(runCli(['demo', '--exchanges', '500'])).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: '--exchanges: the bundled session has 160 exchanges; give at most 160 (or leave --exchanges out for all of them); got 500.',
    });
    expect(JSON.parse((await runCli(['demo', '--exchanges', '160', '--json'])).stdout)).toMatchObject({ exchanges: 160 });
  });
});
