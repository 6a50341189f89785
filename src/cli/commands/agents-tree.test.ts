import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-agents-tree-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});
const turns = (...names: string[]): Message[] => names.flatMap((name) => [{ role: 'user', content: `ask ${name}` }, { role: 'assistant', content: `answer ${name}` }]);

interface Listed {
  agentId: string;
  parentId: string | null;
  name: string | null;
  messages: number;
  inheritedMessages: number;
  tokens: number;
  inheritedTokens: number;
  title: string | null;
  provider: string | null;
  model: string | null;
  lastActivity: string;
}

describe('agents', () => {
  it('draws the fork tree under a header, with names, model, title and messages inherited included; --json says the same', async () => {
    const dataDir = join(directory, 'store');
    const flags = ['--data-dir', dataDir];
    const store = await HistoryStore.open({ dataDir });
    let root: string;
    let child: string;
    let other: string;
    try {
      root = await store.createAgent({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, { name: 'main' });
      await store.append(root, turns('the first task'), { counts: [{ tokens: 1200, exact: true, method: 'test' }, { tokens: 800, exact: true, method: 'test' }], countTarget: { provider: 'anthropic', model: 'claude-sonnet-4-5' } });
      child = await store.fork(root);
      const count = (tokens: number) => ({ tokens, exact: true, method: 'test' });
      const target = { countTarget: { provider: 'anthropic', model: 'claude-sonnet-4-5' } };
      await store.append(child, turns('child work', 'more'), { counts: [count(100), count(100), count(100), count(200)], ...target });
      // What the root stores after the fork is not the child's.
      await store.append(root, turns('root goes on'), { counts: [count(400), count(200)], ...target });
      other = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
      await store.append(other, turns('another'));
    } finally {
      await store.close();
    }
    const grandchild = (await runCli(['fork', child, '--name', 'deeper', ...flags])).stdout.trim();
    const listed = JSON.parse((await runCli(['agents', '--json', ...flags])).stdout) as Listed[];
    const byId = new Map(listed.map((agent) => [agent.agentId, agent]));
    expect(byId.get(root)).toMatchObject({ name: 'main', parentId: null, messages: 4, inheritedMessages: 0, tokens: 2600, inheritedTokens: 0, title: 'ask the first task', provider: 'anthropic', model: 'claude-sonnet-4-5' });
    // A fork inherits the messages up to its fork point, but not its parent's name.
    expect(byId.get(child)).toMatchObject({ name: null, parentId: root, messages: 4, inheritedMessages: 2, tokens: 500, inheritedTokens: 2000, title: 'ask the first task' });
    expect(byId.get(grandchild)).toMatchObject({ name: 'deeper', parentId: child, messages: 0, inheritedMessages: 6, tokens: 0, inheritedTokens: 2500, title: 'ask the first task' });
    expect(byId.get(other)).toMatchObject({ name: null, parentId: null, messages: 2, title: 'ask another', provider: 'openai' });

    const table = (await runCli(['agents', ...flags])).stdout.trimEnd().split('\n');
    expect(table[0]).toMatch(/^AGENT +NAME +MODEL +TITLE +MESSAGES +TOKENS +LAST ACTIVE$/);
    const short = (agentId: string) => agentId.split(':')[1] ?? agentId;
    expect(table.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${root} +main +anthropic/claude-sonnet-4-5 +"ask the first task" +4 +2,600 +just now$`)),
      expect.stringMatching(new RegExp(`^└─ ${short(child)} +anthropic/claude-sonnet-4-5 +"ask the first task" +6 +2,500 +\\S`)),
      expect.stringMatching(new RegExp(`^ {3}└─ ${short(grandchild)} +deeper +anthropic/claude-sonnet-4-5 +"ask the first task" +6 +2,500 +\\S`)),
      expect.stringMatching(new RegExp(`^${other} +openai/gpt-4o +"ask another" +2 +0 +\\S`)),
    ]);
    // Every row of the table is an agent of the JSON, and the columns line up under the header.
    expect(table).toHaveLength(listed.length + 1);
    const messagesEnd = (table[0] ?? '').indexOf('MESSAGES') + 'MESSAGES'.length;
    for (const line of table.slice(1)) expect(line.slice(0, messagesEnd)).toMatch(/\d$/);
  }, 240_000);
});
