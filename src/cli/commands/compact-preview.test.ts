import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-compact-preview-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const example = readFileSync(new URL('../../../examples/coding-agent-session.json', import.meta.url), 'utf8');

describe('compact on a terminal', () => {
  it('shows the summary and asks first: no changes nothing, yes applies it; --yes does not ask; --json never asks', async () => {
    const flags = ['--data-dir', join(directory, 'store')];
    const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: example })).stdout) as { agentId: string };
    const summarized = async () => (JSON.parse((await runCli(['history', agentId, '--json', ...flags])).stdout) as { summary: unknown }).summary;

    const declined = await runCli(['compact', agentId, ...flags], { answers: [false] });
    expect(declined.questions).toEqual(['Replace them with this summary?']);
    expect(declined.stdout).toMatch(/^Earlier in this conversation[\s\S]*\n\n59 exchanges: [\d,]+ → [\d,]+ tokens\nNothing changed\.\n$/);
    expect(await summarized()).toBeNull();

    const accepted = await runCli(['compact', agentId, ...flags], { answers: [true] });
    expect(accepted.questions).toHaveLength(1);
    expect(accepted.stdout).toMatch(/Earlier in this conversation[\s\S]*The summary now covers 59 exchanges/);
    expect(await summarized()).toMatchObject({ coveredExchanges: 59 });

    // One exchange more: the one that was the latest can be condensed now.
    await runCli(['import', '-', '--agent', agentId, ...flags], { stdin: JSON.stringify([{ role: 'user', content: 'One more thing' }, { role: 'assistant', content: 'Done.' }]) });
    const unasked = await runCli(['compact', agentId, '--yes', ...flags], { answers: [false] });
    expect(unasked.questions).toEqual([]);
    expect(unasked.stdout).toMatch(/Earlier in this conversation[\s\S]*The summary now covers 60 exchanges/);
    const json = await runCli(['compact', agentId, '--json', ...flags], { answers: [false] });
    expect(json.questions).toEqual([]);
    expect(JSON.parse(json.stdout)).toMatchObject({ coveredExchanges: 0, fallback: null });
  }, 600_000);
});
