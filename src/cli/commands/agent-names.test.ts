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
});
