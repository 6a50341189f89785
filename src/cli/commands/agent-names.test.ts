import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-cli-names-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const example = readFileSync(new URL('../../../examples/coding-agent-session.json', import.meta.url), 'utf8');

describe('--name', () => {
  it('refuses an empty or whitespace-only name on fork, import and chat, and writes nothing', async () => {
    const flags = ['--data-dir', join(directory, 'names')];
    const { agentId } = JSON.parse((await runCli(['import', 'session.json', '--json', ...flags], { files: { 'session.json': example } })).stdout) as { agentId: string };
    const refusal = (command: string, kind: string) => ({ code: 'INVALID_OPTION', message: expect.stringMatching(new RegExp(`^${command} --name: the name is ${kind}; give a name with at least one visible character`)) });
    for (const [name, kind] of [['', 'empty'], ['   ', 'only spaces'], ['\t', 'only spaces']] as const) {
      await expect(runCli(['fork', agentId, '--name', name, ...flags])).rejects.toMatchObject(refusal('fork', kind));
      await expect(runCli(['import', 'session.json', '--name', name, ...flags], { files: { 'session.json': example } })).rejects.toMatchObject(refusal('import', kind));
      await expect(runCli(['import', 'session.json', '--agent', agentId, '--sync', '--name', name, ...flags], { files: { 'session.json': example } })).rejects.toMatchObject(refusal('import', kind));
      await expect(runCli(['chat', '--name', name, ...flags])).rejects.toMatchObject(refusal('chat', kind));
    }
    const agents = JSON.parse((await runCli(['agents', '--json', ...flags])).stdout) as { agentId: string; name: string | null }[];
    expect(agents).toEqual([expect.objectContaining({ agentId, name: null })]);
    // A name with something visible in it is taken as given.
    const child = (await runCli(['fork', agentId, '--name', ' try postgres ', ...flags])).stdout.trim();
    expect(JSON.parse((await runCli(['agents', '--json', ...flags])).stdout)).toContainEqual(expect.objectContaining({ agentId: child, name: ' try postgres ' }));
  }, 60_000);

  it('a name or a mark label holding a newline, an escape or a direction override is shown on its one line, those visible; JSON keeps it as given', async () => {
    const flags = ['--data-dir', join(directory, 'hostile')];
    const name = 'evil\u001b[31mname\nsecond line\u202eright';
    const label = `lab\nX${'y'.repeat(200)}`;
    const { agentId } = JSON.parse((await runCli(['import', 'session.json', '--json', '--name', name, ...flags], { files: { 'session.json': example } })).stdout) as { agentId: string };
    await runCli(['mark', agentId, label, ...flags]);
    const agents = (await runCli(['agents', ...flags])).stdout.trimEnd().split('\n');
    expect(agents).toHaveLength(2);
    expect(agents[1]).toContain('evil\\x1b[31mname second line\\u202eright');
    const marks = (await runCli(['marks', agentId, ...flags])).stdout.trimEnd().split('\n');
    expect(marks).toHaveLength(2);
    expect(marks[1]).toMatch(/^"lab Xy+…"/);
    const history = (await runCli(['history', agentId, ...flags])).stdout;
    expect(history).toMatch(/── mark "lab Xy+…" \(seq \d+\)/);
    expect(JSON.parse((await runCli(['agents', '--json', ...flags])).stdout)).toEqual([expect.objectContaining({ agentId, name })]);
  }, 60_000);
});
