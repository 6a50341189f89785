import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';
import { renderSearch } from './search-command.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-search-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const flags = ['--data-dir', join(directory, 'store')];
let agent = '';
let child = '';

beforeAll(async () => {
  const store = await HistoryStore.open({ dataDir: join(directory, 'store') });
  try {
    agent = await store.createAgent();
    await store.append(agent, [
      { role: 'user', content: 'Add a dueDate column to tasks' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'src/db/schema.ts' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'export const tasks = table("tasks", {\n  id: uuid(),\n});' } }] },
      { role: 'assistant', content: 'Added dueDate to the tasks table.' },
    ]);
    child = await store.fork(agent);
    await store.append(agent, [{ role: 'user', content: 'Later: rename dueDate to deadline' }]);
  } finally {
    await store.close();
  }
});

describe('search', () => {
  it('prints the matching messages, best first, each with its exchange, message number, age and excerpt', async () => {
    const { stdout } = await runCli(['search', agent, 'schema', ...flags]);
    expect(stdout.split('\n').slice(0, 5)).toEqual([
      `sliding-context search ${agent} "schema" · 1 message matches, best first`,
      '',
      '  exchange #0 · message 2 · assistant read_file · just now',
      '    [call read_file {"path":"src/db/schema.ts"}]',
      '',
    ]);
    expect(stdout).toMatch(/\n\d+ tokens of 4,000 \(estimated\) · exchanges numbered as `history` numbers them\n$/);
  });

  it('takes the query as several words, and gives the search as JSON', async () => {
    const { stdout } = await runCli(['search', agent, 'dueDate', 'tasks', '--json', ...flags]);
    const search = JSON.parse(stdout) as { agentId: string; query: string; complete: boolean; maxTokens: number; hits: { seq: number; exchange: number | null; role: string; createdAt: string }[] };
    expect(search).toMatchObject({ agentId: agent, query: 'dueDate tasks', complete: true, maxTokens: 4000 });
    expect(search.hits.map((hit) => [hit.seq, hit.exchange, hit.role])).toEqual(expect.arrayContaining([[1, 0, 'user'], [4, 0, 'assistant']]));
    expect(search.hits).toHaveLength(2);
    expect(Number.isNaN(Date.parse(search.hits[0]?.createdAt ?? ''))).toBe(false);
  });

  it('a fork finds what it inherited, cited as its parent\'s message, and not what its parent wrote after', async () => {
    const { stdout } = await runCli(['search', child, 'dueDate', ...flags]);
    expect(stdout).toContain(`exchange #0 · message 1 of agent ${agent} · user`);
    expect(stdout).not.toContain('deadline');
    expect((await runCli(['search', child, 'deadline', ...flags])).stdout).toContain('No message this agent sees matches.');
  });

  it('takes -word as a word to exclude, first or not, as its help says; a misspelt --option is still refused', async () => {
    const search = async (...words: string[]) => JSON.parse((await runCli(['search', agent, ...words, '--json', ...flags])).stdout) as { query: string; hits: { seq: number }[] };
    // dueDate is in 1, 4 and 5; only 5 has no "tasks".
    expect((await search('dueDate', '-tasks')).hits.map((hit) => hit.seq)).toEqual([5]);
    // tasks is in 1, 3 and 4; the read of schema.ts, 2, has neither.
    const excluded = await search('-deadline', 'tasks');
    expect(excluded.query).toBe('-deadline tasks');
    expect(excluded.hits.map((hit) => hit.seq).sort()).toEqual([1, 3, 4]);
    expect((await search('-tasks', 'dueDate')).hits.map((hit) => hit.seq)).toEqual([5]);
    await expect(runCli(['search', agent, 'tasks', '--jsn', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_OPTION', message: expect.stringContaining('--jsn') });
    await expect(runCli(['search', '--jsn', agent, 'tasks', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_OPTION', message: expect.stringContaining('--jsn') });
  });

  it('refuses an empty query and an unknown agent with one clear error each', async () => {
    await expect(runCli(['search', agent, ' ', ...flags])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('search: the query is empty') });
    await expect(runCli(['search', '00000000-0000-4000-8000-000000000000', 'x', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
    await expect(runCli(['search', 'not-an-id', 'x', ...flags])).rejects.toMatchObject({ code: 'UNKNOWN_AGENT' });
    await expect(runCli(['search', agent, 'the', ...flags])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('only common words') });
  });

  it('shows what the model wrote with its control characters made visible', () => {
    const text = renderSearch({
      agentId: 'a', query: 'x\u001b[2J', complete: false, tokens: 10, maxTokens: 4000,
      hits: [{ agentId: 'a', seq: 3, exchange: null, role: 'tool', toolNames: ['run_command'], excerpt: 'bad \u001b]0;title\u0007 output', createdAt: new Date(0) }],
    }, new Date(0));
    // eslint-disable-next-line no-control-regex -- the point: no control character but the newline
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('before the first exchange · message 3 · tool run_command · just now');
    expect(text).toContain('(more match: narrow the query)');
  });
});
