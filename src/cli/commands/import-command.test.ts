import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../message/message.js';
import { HistoryStore } from '../../store/history-store.js';
import { runCli } from '../_test-cli.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-import-'));
const dataDir = join(directory, 'store');
const flags = ['--data-dir', dataDir];
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });
const orphan: Message = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-9', toolName: 'read', output: { type: 'text', value: 'done' } }] };
/** What the agent holds: seven messages and a mark, a rewind and a clear, three of them seen by the model. */
const stored: Message[] = [
  user('one'), answer('first'),
  { role: 'event', kind: 'clear' },
  user('two'), answer('second'),
  { role: 'event', kind: 'mark', label: 'before-three' },
  user('three'), answer('third'),
  { role: 'event', kind: 'rewind', label: 'before-three' },
  user('four'),
];
let agentId = '';

beforeAll(async () => {
  const store = await HistoryStore.open({ dataDir });
  try {
    agentId = await store.createAgent({ provider: 'openai', model: 'gpt-4o' });
    await store.append(agentId, stored);
  } finally {
    await store.close();
  }
});

/** The error `import` ends with, and what the agent holds after it. */
async function refusal(args: readonly string[], file: readonly Message[]): Promise<{ error: unknown; held: number }> {
  const error: unknown = await runCli(['import', 'file.json', ...args, ...flags], { files: { 'file.json': JSON.stringify(file) } }).then(() => undefined, (caught: unknown) => caught);
  const store = await HistoryStore.open({ dataDir, create: false });
  try {
    return { error, held: await store.lastSeq(agentId) };
  } finally {
    await store.close();
  }
}

describe('import refusing a broken conversation names the message by its place in the file', () => {
  it('with --agent, after what the agent holds, its clear and its rewind: the file\'s messages[1], not messages[4] of what the model would see', async () => {
    const { error, held } = await refusal(['--agent', agentId], [answer('fourth'), orphan]);
    expect(error).toMatchObject({
      code: 'ORPHANED_TOOL_RESULT',
      message: 'In the conversation being imported, messages[1].content[0]: tool result for "call-9" has no tool call before it in the same exchange; fix the conversation or repair its pairing explicitly.',
    });
    expect(held).toBe(stored.length);
  });

  it('with --agent, a file whose own events rewind into what the agent holds: the file\'s messages[4]', async () => {
    const file: Message[] = [answer('fourth'), { role: 'event', kind: 'mark', label: 'in-file' }, user('five'), { role: 'event', kind: 'rewind', label: 'before-three' }, orphan];
    const { error, held } = await refusal(['--agent', agentId], file);
    expect(error).toMatchObject({ code: 'ORPHANED_TOOL_RESULT', message: expect.stringMatching(/^In the conversation being imported, messages\[4\]\.content\[0\]: /) as unknown });
    expect(held).toBe(stored.length);
  });

  it('with --agent, a rewind to no mark the agent or the file reaches: the file\'s messages[1]', async () => {
    const { error, held } = await refusal(['--agent', agentId], [answer('fourth'), { role: 'event', kind: 'rewind', label: 'nowhere' }]);
    expect(error).toMatchObject({ code: 'UNKNOWN_MARK', message: expect.stringMatching(/^In the conversation being imported, messages\[1\]: cannot rewind to mark "nowhere"/) as unknown });
    expect(held).toBe(stored.length);
  });

  it('with --agent --sync, a body that grows what the model sees: the body\'s messages[4]', async () => {
    const { error, held } = await refusal(['--agent', agentId, '--sync'], [user('two'), answer('second'), user('four'), answer('fourth'), orphan]);
    expect(error).toMatchObject({ code: 'ORPHANED_TOOL_RESULT', message: expect.stringMatching(/^In the conversation being imported, messages\[4\]\.content\[0\]: /) as unknown });
    expect(held).toBe(stored.length);
  });

  it('as a new agent, past the file\'s own mark and rewind: messages[5]', async () => {
    const file: Message[] = [user('one'), { role: 'event', kind: 'mark', label: 'a' }, answer('first'), { role: 'event', kind: 'rewind', label: 'a' }, user('two'), orphan];
    const { error } = await refusal([], file);
    expect(error).toMatchObject({ code: 'ORPHANED_TOOL_RESULT', message: expect.stringMatching(/^messages\[5\]\.content\[0\]: /) as unknown });
  });
});

describe('import of no messages', () => {
  it('is refused, as a new agent and with --agent, and stores nothing: no agent, no store', async () => {
    const empty = join(directory, 'empty-store');
    await expect(runCli(['import', 'file.json', '--data-dir', empty], { files: { 'file.json': '[]' } })).rejects.toMatchObject({ code: 'INVALID_CONVERSATION', message: 'file.json holds no messages to import; nothing was stored.' });
    await expect(runCli(['agents', '--data-dir', empty])).rejects.toMatchObject({ code: 'NO_STORE' });
    const { error, held } = await refusal(['--agent', agentId], []);
    expect(error).toMatchObject({ code: 'INVALID_CONVERSATION' });
    expect(held).toBe(stored.length);
  });
  it('is refused when all it holds is events: a Claude Code file of summary lines alone, as a new agent and with --agent', async () => {
    const summaries = ['Fixing the payments tests', 'Refactor of the ledger', 'Release notes'].map((summary, index) => JSON.stringify({ type: 'summary', summary, leafUuid: `leaf-${index}` })).join('\n');
    const files = { 't_summary_only.jsonl': `${summaries}\n` };
    const empty = join(directory, 'events-only-store');
    await expect(runCli(['import', 't_summary_only.jsonl', '--format', 'claude-code', '--data-dir', empty], { files })).rejects.toMatchObject({
      code: 'INVALID_CONVERSATION', message: 't_summary_only.jsonl holds no messages to import (only 3 events, such as marks); nothing was stored.',
    });
    await expect(runCli(['agents', '--data-dir', empty])).rejects.toMatchObject({ code: 'NO_STORE' });
    const { error, held } = await refusal(['--agent', agentId], [{ role: 'event', kind: 'mark', label: 'only-a-mark' }]);
    expect(error).toMatchObject({ code: 'INVALID_CONVERSATION', message: expect.stringContaining('holds no messages to import (only 1 event, such as marks)') as unknown });
    expect(held).toBe(stored.length);
  });
});
