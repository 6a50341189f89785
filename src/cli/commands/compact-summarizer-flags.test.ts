import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';
import { startLoopbackServer } from '../../testing/loopback-server.js';

const directory = mkdtempSync(join(tmpdir(), 'sliding-context-compact-flags-'));
const server = await startLoopbackServer(() => ({ status: 500, body: { error: { message: 'nothing should be asked' } } }));
afterAll(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

// No store is in the data directory: a check that came after opening it would say NO_STORE instead.
const compact = (...flags: string[]) => runCli(['compact', 'agent-1', '--summarizer', 'llm', '--dry-run', '--data-dir', join(directory, 'none'), ...flags], { env: { OPENAI_API_KEY: 'test' } });

describe('compact checks the summarizer\'s flags up front', () => {
  it.each(['not a url', 'file:///etc/passwd', 'ftp://127.0.0.1/v1', '127.0.0.1:8080/v1', ''])('--base-url %j is INVALID_OPTION naming the flag', async (url) => {
    await expect(compact('--base-url', url)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^--base-url: .* is not an http\(s\) URL/) as unknown });
    expect(server.received).toHaveLength(0);
  });

  it.each(['', '   '])('--summarizer-model %j is INVALID_OPTION naming the flag', async (model) => {
    await expect(compact('--base-url', `${server.url}/v1`, '--summarizer-model', model)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^--summarizer-model: the name is empty/) as unknown });
    expect(server.received).toHaveLength(0);
  });

  it('an http(s) --base-url and a model pass on to the store', async () => {
    await expect(compact('--base-url', `${server.url}/v1`, '--summarizer-model', 'qwen3')).rejects.toMatchObject({ code: 'NO_STORE' });
  });
});
