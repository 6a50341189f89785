import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../../testing/server-database.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-cli-pin-'));
const databases: Awaited<ReturnType<typeof createServerDatabase>>[] = [];
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});
const example = readFileSync(new URL('../../../examples/coding-agent-session.json', import.meta.url), 'utf8');

interface PinJson {
  readonly changed: boolean;
  readonly floorTokens: number;
  readonly pins: { message: { agentId: string; seq: number }; placement: string; tokens: number }[];
}

function describePinCommands(engine: string, flags: () => Promise<string[]>) {
  describe(`pin and unpin (${engine})`, () => {
    it('pin the first request: hoisted in history, window --agent and their --json; again is a no-op; unpin takes it away', async () => {
      const store = await flags();
      const { agentId } = JSON.parse((await runCli(['import', '-', '--json', ...store], { stdin: example })).stdout) as { agentId: string };
      const timeline = JSON.parse((await runCli(['history', agentId, '--all', '--json', ...store])).stdout) as { timeline: { type: string; firstSeq: number; title: string }[] };
      const first = timeline.timeline.find((row) => row.type === 'exchange');
      const seq = String(first?.firstSeq);
      const budget = ['--budget', '20000'];
      const pinned = JSON.parse((await runCli(['pin', agentId, seq, '--json', ...budget, ...store])).stdout) as PinJson;
      expect(pinned.changed).toBe(true);
      expect(pinned.pins).toEqual([{ message: { agentId, seq: Number(seq) }, placement: 'hoisted', tokens: expect.any(Number) as number }]);
      expect((await runCli(['pin', agentId, seq, ...budget, ...store])).stdout).toMatch(new RegExp(`^already pinned: seq ${seq}\\nPins {7}1 message, [\\d,]+ tokens; the request takes at least [\\d,]+ of the budget 20,000:\\n {2}seq ${seq} {2}hoisted to the preamble · [\\d,]+ tokens\\n$`));
      const history = JSON.parse((await runCli(['history', agentId, '--json', ...budget, ...store])).stdout) as { pins: PinJson['pins']; messages: { role: string; content: unknown }[]; totalTokens: number };
      expect(history.pins).toEqual(pinned.pins);
      const hoisted = history.messages.filter((message) => message.role === 'system' && typeof message.content === 'string' && message.content.startsWith(first?.title.slice(0, 20) ?? '?'));
      expect(hoisted).toHaveLength(1);
      expect(history.totalTokens).toBeLessThanOrEqual(20_000);
      const window = JSON.parse((await runCli(['window', '--agent', agentId, '--json', ...budget, ...store])).stdout) as { pins: PinJson['pins'] };
      expect(window.pins).toEqual(pinned.pins);
      expect((await runCli(['history', agentId, ...budget, ...store])).stdout).toMatch(/\nPins {7}1 message, .*\n {2}seq \d+ {2}hoisted to the preamble · [\d,]+ tokens\n/);
      const unpinned = JSON.parse((await runCli(['unpin', agentId, seq, '--json', ...budget, ...store])).stdout) as PinJson;
      expect(unpinned.pins).toEqual([]);
      await expect(runCli(['unpin', agentId, seq, ...store])).rejects.toMatchObject({ code: 'INVALID_PIN' });
      await expect(runCli(['pin', agentId, '999999', ...store])).rejects.toMatchObject({ code: 'INVALID_PIN', message: expect.stringContaining('seq 999999') as string });
      await expect(runCli(['pin', agentId, '3.5', ...store])).rejects.toMatchObject({ code: 'INVALID_OPTION' });
      // A pin too large for the budget with the latest exchange is refused, and nothing is stored.
      await expect(runCli(['pin', agentId, seq, '--budget', '300', ...store])).rejects.toMatchObject({ code: 'PIN_OVER_BUDGET', message: expect.stringContaining('over the budget of 300') as string });
      expect((JSON.parse((await runCli(['history', agentId, '--json', ...budget, ...store])).stdout) as { pins?: unknown[] }).pins ?? []).toEqual([]);
    }, 300_000);
  });
}

describePinCommands('PGlite', () => Promise.resolve(['--data-dir', join(directory, 'data')]));
const serverUrl = process.env.DATABASE_URL;
if (serverUrl) {
  describePinCommands('PostgreSQL server', async () => {
    const database = await createServerDatabase(serverUrl, 'pin_cli');
    databases.push(database);
    return ['--database-url', database.url];
  });
}
