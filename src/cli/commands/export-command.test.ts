import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../../errors/sliding-context-error.js';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-export-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('export', () => {
  it('--out writes JSONL that import reads back with its events; a wire format says on stderr what it left out', async () => {
    const dataDir = join(directory, 'store');
    const flags = ['--data-dir', dataDir];
    const history: Message[] = [
      { role: 'user', content: 'ask one' },
      { role: 'assistant', content: 'answer one' },
      { role: 'event', kind: 'mark', label: 'a' },
      { role: 'user', content: 'ask two' },
      { role: 'assistant', content: 'answer two' },
      { role: 'event', kind: 'rewind', label: 'a' },
      { role: 'user', content: 'ask three' },
      { role: 'assistant', content: 'answer three' },
    ];
    const store = await HistoryStore.open({ dataDir });
    const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o', system: 'Be brief.' });
    await store.append(agentId, history);
    await store.close();

    const { written, stderr } = await runCli(['export', agentId, '--out', 'agent.jsonl', ...flags]);
    expect(stderr).toBe(`exported 8 messages of ${agentId} as jsonl to agent.jsonl\n`);
    const text = written['agent.jsonl'] ?? '';
    const lines = text.trimEnd().split('\n').slice(1).map((line) => JSON.parse(line) as { createdAt: string });
    expect(lines.map(({ createdAt: _, ...message }) => message)).toEqual(history);
    expect(lines.every((line) => !Number.isNaN(Date.parse(line.createdAt)))).toBe(true);
    const { agentId: copy } = JSON.parse((await runCli(['import', 'agent.jsonl', '--json', ...flags], { files: { 'agent.jsonl': text } })).stdout) as { agentId: string };

    const wire = await runCli(['export', copy, '--format', 'anthropic', ...flags]);
    expect(JSON.parse(wire.stdout)).toMatchObject({ system: 'Be brief.', messages: [{ role: 'user' }, { role: 'assistant' }, { role: 'user' }, { role: 'assistant' }] });
    expect(wire.stderr).toBe([
      'note: the agent\'s model openai/gpt-4o is for openai, not anthropic; the anthropic body names claude-sonnet-4-6, anthropic\'s default (--model chooses another)',
      'note: anthropic cannot represent events: left out 1 mark, 1 rewind, 2 messages a clear or rewind hid; --format jsonl keeps them',
      '',
    ].join('\n'));
    const reopened = await HistoryStore.open({ dataDir });
    try {
      expect((await reopened.history(copy)).map((entry) => entry.message)).toEqual(history);
      // When each message was written comes back too.
      expect((await reopened.history(copy)).map((entry) => entry.createdAt)).toEqual((await reopened.history(agentId)).map((entry) => entry.createdAt));
    } finally {
      await reopened.close();
    }
  }, 600_000);

  it('jsonl keeps the agent\'s provider and wire format: import reads them back, not the defaults', async () => {
    const dataDir = join(directory, 'providers');
    const flags = ['--data-dir', dataDir];
    const store = await HistoryStore.open({ dataDir });
    const anthropic = await store.createAgent({ provider: 'anthropic', model: 'claude-sonnet-4-6', format: 'anthropic' });
    const responses = await store.createAgent({ provider: 'openai', model: 'gpt-4o', format: 'openai-responses' });
    for (const agentId of [anthropic, responses]) await store.append(agentId, [{ role: 'user', content: 'ask' }, { role: 'assistant', content: 'answer' }]);
    await store.close();
    for (const [agentId, provider, format] of [[anthropic, 'anthropic', 'anthropic'], [responses, 'openai', 'openai-responses']] as const) {
      const exported = (await runCli(['export', agentId, ...flags])).stdout;
      expect(JSON.parse(exported.split('\n')[0] ?? '')).toMatchObject({ provider, format });
      const imported = await runCli(['import', 'agent.jsonl', '--json', ...flags], { files: { 'agent.jsonl': exported } });
      expect(imported.stderr, provider).not.toContain('Unknown model');
      const { agentId: copy } = JSON.parse(imported.stdout) as { agentId: string };
      const history = JSON.parse((await runCli(['history', copy, '--json', ...flags])).stdout) as { provider: string; format: string };
      expect({ provider: history.provider, format: history.format }).toEqual({ provider, format });
    }
  }, 600_000);

  it('refuses an --out that is the store\'s own (a file in its folder, its lock, socket or views), writing nothing', async () => {
    const dataDir = join(directory, 'guarded');
    const store = await HistoryStore.open({ dataDir });
    const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
    await store.append(agentId, [{ role: 'user', content: 'keep me' }]);
    await store.close();
    for (const out of [join(dataDir, 'PG_VERSION'), dataDir, `${dataDir}.lock`, `${dataDir}.sock`, join(`${dataDir}.views`, 'x.json'), join(dataDir, '..', 'guarded', 'base')]) {
      const error: unknown = await runCli(['export', agentId, '--out', out, '--data-dir', dataDir]).then(() => undefined, (caught: unknown) => caught);
      expect(isSlidingContextError(error, 'OUTPUT_UNWRITABLE'), out).toBe(true);
      expect(String(error), out).toContain('is part of the store');
    }
    // A file beside the store, whose name only starts the same, is written.
    const { written } = await runCli(['export', agentId, '--out', `${dataDir}-export.jsonl`, '--data-dir', dataDir]);
    expect(Object.keys(written)).toEqual([`${dataDir}-export.jsonl`]);
  });

  it('jsonl of a forked agent keeps each createdAt and says where it was forked from; import reads it back the same', async () => {
    const dataDir = join(directory, 'fork');
    const flags = ['--data-dir', dataDir];
    const store = await HistoryStore.open({ dataDir });
    const root = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
    await store.append(root, [{ role: 'user', content: 'ask one' }, { role: 'assistant', content: 'answer one' }]);
    const child = await store.fork(root);
    await store.append(child, [{ role: 'user', content: 'ask two' }, { role: 'assistant', content: 'answer two' }]);
    const grandchild = await store.fork(child);
    const before = await store.history(grandchild, { acrossClears: true });
    await store.close();

    const { stdout } = await runCli(['export', grandchild, ...flags]);
    const [header, ...lines] = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(header).toMatchObject({ agentId: grandchild, forkedFrom: { agentId: child, seq: 2 } });
    expect(lines.map((line) => (line.role === 'event' ? { [String(line.kind)]: line.data } : line.content))).toEqual([
      'ask one',
      'answer one',
      { fork: { from: { agentId: root, seq: 2 }, agentId: child } },
      'ask two',
      'answer two',
      { fork: { from: { agentId: child, seq: 2 }, agentId: grandchild } },
    ]);
    expect(lines.filter((line) => line.role !== 'event').map((line) => line.createdAt)).toEqual(before.map((entry) => entry.createdAt.toISOString()));

    const { agentId: copy } = JSON.parse((await runCli(['import', '-', '--json', ...flags], { stdin: stdout })).stdout) as { agentId: string };
    const reopened = await HistoryStore.open({ dataDir });
    try {
      const after = await reopened.history(copy, { acrossClears: true });
      expect(after.filter((entry) => entry.message.role !== 'event').map(({ message, createdAt }) => ({ message, createdAt }))).toEqual(before.map(({ message, createdAt }) => ({ message, createdAt })));
      expect(after.filter((entry) => entry.message.role === 'event').map((entry) => entry.message)).toEqual([
        { role: 'event', kind: 'fork', data: { from: { agentId: root, seq: 2 }, agentId: child } },
        { role: 'event', kind: 'fork', data: { from: { agentId: child, seq: 2 }, agentId: grandchild } },
      ]);
    } finally {
      await reopened.close();
    }
    // Exported again, the copy gives the same lines: only its own id in the header differs.
    const again = (await runCli(['export', copy, ...flags])).stdout.trimEnd().split('\n');
    expect(again.slice(1).map((line) => JSON.parse(line) as unknown)).toEqual(lines);
  }, 600_000);

  it('a body in another provider\'s format names that provider\'s model, or --model, and says so on stderr', async () => {
    const dataDir = join(directory, 'model');
    const flags = ['--data-dir', dataDir];
    const store = await HistoryStore.open({ dataDir });
    const agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
    await store.append(agentId, [{ role: 'user', content: 'ask' }, { role: 'assistant', content: 'answer' }]);
    await store.close();
    const anthropic = await runCli(['export', agentId, '--format', 'anthropic', ...flags]);
    expect(JSON.parse(anthropic.stdout)).toMatchObject({ model: 'claude-sonnet-4-6' });
    expect(anthropic.stderr).toBe('note: the agent\'s model openai/gpt-4o is for openai, not anthropic; the anthropic body names claude-sonnet-4-6, anthropic\'s default (--model chooses another)\n');
    const chosen = await runCli(['export', agentId, '--format', 'google', '--model', 'gemini-2.5-pro', '--json', ...flags]);
    expect(JSON.parse(chosen.stdout)).toMatchObject({ format: 'google', model: 'gemini-2.5-pro' });
    expect(chosen.stderr).toBe('note: the google body names gemini-2.5-pro (--model); the agent\'s model is openai/gpt-4o\n');
    // The agent's own provider's format keeps its model, and says nothing.
    const same = await runCli(['export', agentId, '--format', 'openai-responses', ...flags]);
    expect(JSON.parse(same.stdout)).toMatchObject({ model: 'gpt-4o' });
    expect(same.stderr).toBe('');
  }, 600_000);
});
