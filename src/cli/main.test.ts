import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the real CLI entry point in a child process. */
function cli(args: string[], input?: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, SLIDING_CONTEXT_TOKENS: '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the sliding-context binary', () => {
  it('is built executable, so that `npx sliding-context` runs it (the build runs on install)', () => {
    const result = spawnSync('./dist/cli/main.js', ['--help'], { cwd: root, encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('window');
  });

  it('--version prints the package version', () => {
    const { status, stdout } = cli(['--version']);
    expect(status).toBe(0);
    expect(stdout.trim()).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  });

  it('every command has --help with an example; bad usage and bad input exit 2', () => {
    const { stdout } = cli(['--help']);
    const commands = [...stdout.matchAll(/^ {2}([a-z]+) /gm)].map((match) => match[1] as string).filter((name) => name !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['window', 'count', 'demo', 'import', 'agents', 'history', 'compact', 'fork', 'clear', 'mark', 'rewind']));
    for (const command of commands) {
      const help = cli([command, '--help']);
      expect(help.status, command).toBe(0);
      expect(help.stdout, command).toMatch(/Examples?:\n {2}sliding-context /);
    }
    expect(cli(['window', '--no-such-flag']).status).toBe(2);
    const bad = cli(['window', '-', '--budget', '-3'], '[]');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error\[BUDGET_INVALID\]: /);
    // About thirty processes, each compiling the source: on a loaded two-core machine that took over a minute.
  }, 240_000);

  it('--help lists the commands', () => {
    const { status, stdout } = cli(['--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/Commands:\n\s+window/);
  });

  it('windows the bundled example and draws the context rule', () => {
    const { status, stdout } = cli([
      'window',
      'examples/coding-agent-session.json',
      '--budget',
      '24000',
    ]);
    expect(status).toBe(0);
    expect(stdout).toContain('── context ──');
  });

  it('exits 2 with error[CODE] and no stack trace on bad input', () => {
    const { status, stderr, stdout } = cli(['window', '-'], '{"messages": [{"role": "robot"}]}');
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^error\[INVALID_MESSAGE\]: Invalid message: messages\[0\]\.role: expected/,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('shows the control characters an error message quotes, never sends them to the terminal', () => {
    const input = JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'event', kind: 'rewind', label: '\u001b]0;pwned\u0007\u001b[2J' }]);
    const { status, stderr } = cli(['window', '-'], input);
    expect(status).toBe(2);
    expect(stderr).toContain('error[UNKNOWN_MARK]');
    expect(stderr).toContain('mark "\\x1b]0;pwned\\x07\\x1b[2J"');
    // eslint-disable-next-line no-control-regex -- the point: no control character but the newline
    expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });

  it('exits 2 on an unknown option', () => {
    expect(cli(['window', '--bogus']).status).toBe(2);
  });
});
