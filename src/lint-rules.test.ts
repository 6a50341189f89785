import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/** The project's own ESLint config, with only the rules under test run (no type information needed). */
const eslint = new ESLint({
  cwd: new URL('..', import.meta.url).pathname,
  overrideConfig: [{ files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked }],
  ruleFilter: ({ ruleId }) => ruleId.startsWith('no-restricted-'),
});

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
}

describe('the core layers (message < exchange < tokens < window < condense)', () => {
  it.each([
    ['a Node built-in by its node: name', 'src/window/x.ts', 'import { readFileSync } from \'node:fs\';', /Node built-ins belong/],
    ['a bare Node built-in', 'src/message/x.ts', 'import { join } from \'path\';', /Node built-ins belong/],
    ['a Node built-in subpath', 'src/tokens/rules/x.ts', 'import { readFile } from \'fs/promises\';', /Node built-ins belong/],
    ['the embedded database', 'src/exchange/x.ts', 'import { PGlite } from \'@electric-sql/pglite\';', /database access belongs in store/],
    ['Kysely', 'src/condense/x.ts', 'import type { Kysely } from \'kysely\';', /database access belongs in store/],
    ['pg', 'src/window/x.ts', 'import pg from \'pg\';', /database access belongs in store/],
    ['the OpenAI SDK', 'src/condense/x.ts', 'import type OpenAI from \'openai\';', /SDKs belong in providers/],
    ['the Anthropic SDK', 'src/tokens/x.ts', 'import Anthropic from \'@anthropic-ai/sdk\';', /SDKs belong in providers/],
    ['the Google SDK', 'src/tokens/x.ts', 'import { GoogleGenAI } from \'@google/genai\';', /SDKs belong in providers/],
    ['the AI SDK', 'src/window/x.ts', 'import { generateText } from \'ai\';', /SDKs belong in providers/],
    ['a layer above it', 'src/window/x.ts', 'import type { Summarizer } from \'../condense/summarizer.js\';', /src\/window may import only errors, message, exchange, tokens/],
    ['a layer above it, from a subfolder', 'src/tokens/rules/x.ts', 'import { planWindow } from \'../../window/plan-window.js\';', /src\/tokens may import only/],
    ['the store, by a type', 'src/condense/x.ts', 'import type { HistoryStore } from \'../store/history-store.js\';', /src\/condense may import only/],
    ['the conversation', 'src/exchange/x.ts', 'import { openConversation } from \'../conversation/conversation.js\';', /src\/exchange may import only/],
    ['the CLI', 'src/message/x.ts', 'import { render } from \'../cli/render/window-report.js\';', /src\/message may import only errors and itself/],
    ['the package entry point', 'src/window/x.ts', 'import { planWindow } from \'../index.js\';', /src\/window may import only/],
    ['the test helpers', 'src/window/x.ts', 'import { user } from \'../testing/message-builders.js\';', /src\/window may import only/],
    ['the process', 'src/tokens/x.ts', 'export const home = process.env.HOME;', /no-restricted-globals: .*reads no environment/],
    ['a Buffer', 'src/message/x.ts', 'export const bytes = Buffer.from(\'a\');', /no-restricted-globals/],
  ])('fails on %s', async (_, filePath, code, expected) => {
    const found = await problems(filePath, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(expected);
  });

  it.each([
    ['the layers below it and the errors', 'src/window/x.ts', [
      'import type { ModelMessage } from \'../message/message.js\';',
      'import { detectExchanges } from \'../exchange/detect-exchanges.js\';',
      'import type { TokenCounter } from \'../tokens/token-counter.js\';',
      'import { SlidingContextError } from \'../errors/sliding-context-error.js\';',
      'import { z } from \'zod\';',
      'import { cutInput } from \'./cut-input.js\';',
    ].join('\n')],
    ['its own subfolders', 'src/tokens/rules/x.ts', 'import { fixed } from \'../measure.js\';\nimport { countOpenAiImage } from \'../media/image-tokens.js\';'],
    ['a module named like a built-in prefix', 'src/tokens/x.ts', 'import { encode } from \'gpt-tokenizer/encoding/o200k_base\';\nimport { z } from \'zod/mini\';'],
    ['fixtures read from disk in a test', 'src/tokens/x.test.ts', 'import { readFileSync } from \'node:fs\';\nimport { user } from \'../testing/message-builders.js\';'],
    ['Node built-ins outside the core', 'src/store/x.ts', 'import { readFileSync } from \'node:fs\';\nimport pg from \'pg\';\nexport const env = process.env;'],
  ])('allows %s', async (_, filePath, code) => {
    expect(await problems(filePath, code)).toEqual([]);
  });

  it('holds the LLM summarizer to the core: it asks through complete(), never an SDK', async () => {
    expect(await problems('src/condense/llm-summarizer.ts', 'import type OpenAI from \'openai\';')).toHaveLength(1);
    expect(await problems('src/condense/llm-summarizer.ts', 'import { HistoryStore } from \'../store/history-store.js\';')).toEqual([expect.stringMatching(/src\/condense may import only/)]);
  });

  it('holds a test to the layers: it may read files, but not reach above its layer', async () => {
    const found = await problems('src/window/x.test.ts', 'import { renderWindowReport } from \'../cli/render/window-report.js\';');
    expect(found).toEqual([expect.stringMatching(/src\/window may import only/)]);
  });
});

describe('the library throws only SlidingContextError', () => {
  it.each([
    ['a plain Error', 'src/store/x.ts', 'throw new Error(\'broken\');'],
    ['a TypeError', 'src/window/x.ts', 'export const fail = () => { throw new TypeError(\'broken\'); };'],
    ['an Error made without new', 'src/providers/x.ts', 'export const error = Error(\'broken\');'],
    ['a rejection with a plain Error', 'src/conversation/x.ts', 'export const failed = Promise.reject(new Error(\'broken\'));'],
  ])('fails on %s', async (_, filePath, code) => {
    expect(await problems(filePath, code)).toEqual([expect.stringMatching(/no-restricted-syntax: Throw a SlidingContextError with a code/)]);
  });

  it.each([
    ['a SlidingContextError', 'src/store/x.ts', 'import { SlidingContextError } from \'../errors/sliding-context-error.js\';\nthrow new SlidingContextError(\'NOT_SUPPORTED\', \'no\');'],
    ['a plain Error in the CLI', 'src/cli/x.ts', 'throw new Error(\'usage\');'],
    ['a plain Error in a test', 'src/window/x.test.ts', 'throw new Error(\'fixture\');'],
  ])('allows %s', async (_, filePath, code) => {
    expect(await problems(filePath, code)).toEqual([]);
  });
});
