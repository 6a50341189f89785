import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { ModelMessage } from '../../message/message.js';
import { checkPairing } from '../../exchange/check-pairing.js';
import type { ScriptedReply, SeenRequest } from './_test-provider-servers.js';

/** A file's text: long enough that a few turns fill a small budget. */
export const fileText = (path: string) => Array.from({ length: 40 }, (_, line) => `${path} line ${line}: the quick brown fox jumps over the lazy dog`).join('\n');

/** The agent's tools: a weather lookup (called twice at once) and a file read. */
export const agentTools = [
  tool(({ city }) => `Sunny and 21 degrees in ${city}.`, { name: 'get_weather', description: 'The weather in a city.', schema: z.object({ city: z.string() }) }),
  tool(({ path }) => fileText(path), { name: 'read_file', description: 'Reads a file.', schema: z.object({ path: z.string() }) }),
];

export const userText = (turn: number) => `Turn ${turn}: what is the weather in Oslo and Lima, then read notes-${turn}.txt`;

const textOf = (message: ModelMessage | undefined) => (message === undefined ? '' : typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join(''));

/**
 * The scripted model of every turn: two weather calls at once, then a file read, then an answer;
 * chosen by the tool results that follow the turn's user message.
 */
export function scriptedReply(messages: readonly ModelMessage[]): ScriptedReply {
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && !(messages[lastUser]?.role === 'user' && textOf(messages[lastUser]).startsWith('Turn'))) lastUser -= 1;
  const turn = /^Turn (\d+)/.exec(textOf(messages[lastUser]))?.[1] ?? '?';
  const results = messages.slice(lastUser + 1).filter((message) => message.role === 'tool' || (message.role === 'user' && Array.isArray(message.content) && message.content.some((part) => part.type === 'tool-result'))).flatMap((message) => (Array.isArray(message.content) ? message.content.filter((part) => part.type === 'tool-result') : []));
  if (results.length === 0) return { text: 'Looking both up.', toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }, { name: 'get_weather', input: { city: 'Lima' } }] };
  if (results.length === 2) return { toolCalls: [{ name: 'read_file', input: { path: `notes-${turn}.txt` } }] };
  return { text: `Turn ${turn} done: sunny in both, and the notes are read.` };
}

/** What a request broke of the window's promises: pairing, the first message, the latest exchange. */
export function requestProblems(request: SeenRequest, latestUserText: string | undefined): string[] {
  const problems = checkPairing(request.messages).map((problem) => `${problem.code} ${problem.toolCallId}`);
  const first = request.messages.find((message) => message.role !== 'system');
  if (first?.role !== 'user') problems.push(`starts with ${first?.role ?? 'nothing'}`);
  if (latestUserText !== undefined && !request.messages.some((message) => message.role === 'user' && textOf(message) === latestUserText)) problems.push(`lacks "${latestUserText}"`);
  return problems;
}

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The built CLI in a second process, as a user runs it while the application holds the store. */
export function runBuiltCli(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'dist/cli/main.js'), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '', NO_COLOR: '1' }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
