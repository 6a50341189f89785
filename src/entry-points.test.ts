import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Runs the built package (`npm run build`), as an application imports it. */
const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'entry-points-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

// A resolve hook that writes every module URL the process resolves to a file, one a line.
writeFileSync(join(scratch, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.RESOLVED_LOG, result.url + '\\n');
  return result;
}
`);
writeFileSync(join(scratch, 'register.mjs'), `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);
`);

/** Imports `entry` in a fresh Node process: its export names and the packages it loaded. */
function importFresh(entry: string): { names: string[]; packages: string[] } {
  const log = join(scratch, `${entry.replaceAll('/', '_')}.log`);
  const code = `const entry = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(entry)));`;
  const child = spawnSync(process.execPath, ['--import', join(scratch, 'register.mjs'), '--input-type=module', '-e', code], {
    cwd: root, encoding: 'utf8', env: { ...process.env, RESOLVED_LOG: log },
  });
  expect(child.stderr).toBe('');
  const packages = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const inModules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (inModules?.[1] !== undefined) packages.add(inModules[1]);
  }
  return { names: JSON.parse(child.stdout) as string[], packages: [...packages].sort() };
}

/** What the core must never load: the database, its query builder and driver, the provider SDKs. */
const HEAVY = /^(@electric-sql\/pglite|kysely|pg|pg-.*|openai|@anthropic-ai\/sdk|@google\/genai|ai)$/;

/** The frameworks, optional peers: only their own entry loads them. */
const FRAMEWORKS = /^(langchain|@langchain\/.*|@mastra\/.*)$/;

/** Every value the root entry exported before the store and the providers had entries of their own. */
const EXPORTED_BEFORE = [
  'Conversation', 'DEFAULT_BUDGET_TOKENS', 'DEFAULT_BUFFER_FRACTION', 'DEFAULT_CONDENSE_THRESHOLD', 'DEFAULT_CONDENSING_PROMPT', 'DEFAULT_FRACTION',
  'DEFAULT_KEPT_TOOL_OUTPUTS', 'DEFAULT_MINIMUM_CLEARED_TOKENS', 'DEFAULT_MODEL', 'DEFAULT_PROVIDER', 'DEFAULT_RESERVED_OUTPUT_TOKENS', 'DEFAULT_RETENTION_WINDOW',
  'DIGEST_HEADING', 'HistoryStore', 'RAW_ARGUMENTS_KEY', 'SlidingContextError', 'UsageCalibration', 'WINDOW_POLICY_NAMES', 'WindowState', 'activeSummary',
  'applyEvents', 'applyEventsTo', 'assistantMessageSchema', 'buildAbortedResultMessage', 'buildAiSdkRequest', 'buildAnthropicRequest', 'buildGoogleRequest',
  'buildOpenAiChatRequest', 'buildOpenAiResponsesRequest', 'buildRequest', 'bytesPerTokenCounter', 'checkPairing', 'checkSummary', 'classifyContent',
  'clearToolOutputs', 'clearedOutputText', 'contextOverflowOf', 'convertFrom', 'convertFromAiSdk', 'convertFromAnthropic', 'convertFromGoogle',
  'convertFromOpenAiChat', 'convertFromOpenAiResponses', 'createPreflightCounter', 'createTokenCounter', 'defaultDataDir', 'describeExchange', 'detectExchanges',
  'detectFormat', 'digestExchange', 'digestSummarizer', 'eventKinds', 'eventMessageSchema', 'filePartSchema', 'findCompressibleRun', 'formatAgentId',
  'imagePartSchema', 'inputTokensFromUsage', 'isModelMessage', 'isSlidingContextError', 'isSummaryMessage', 'llmSummarizer', 'loadEncoding', 'loadTokenCounter',
  'messageSchema', 'modelBudget', 'modelFamily', 'openConversation', 'parseAgentId', 'parseMessages', 'parseToolDefinitions', 'planStoredHistory', 'planWindow',
  'providerOptionsSchema', 'reasoningPartSchema', 'repairPairing', 'requireValidConversation', 'resolveBudgetTokens', 'resolveCondenseThreshold', 'resolveModel',
  'sequenceThresholdFires', 'shouldCondense', 'startsExchange', 'sumTokenCounts', 'summaryMessage', 'systemMessageSchema', 'textPartSchema', 'toolCallPartSchema',
  'toolDefinitionSchema', 'toolMessageSchema', 'toolResultOutputSchema', 'toolResultPartSchema', 'userMessageSchema', 'validateBudgetTokens',
  'validateWindowPolicy', 'wireFormats',
];

describe('entry points', () => {
  type Imported = ReturnType<typeof importFresh>;
  let core: Imported;
  let store: Imported;
  let providers: Imported;
  let langchain: Imported;
  let aiSdk: Imported;
  let mastra: Imported;
  beforeAll(() => {
    core = importFresh('sliding-context');
    store = importFresh('sliding-context/store');
    providers = importFresh('sliding-context/providers');
    langchain = importFresh('sliding-context/langchain');
    aiSdk = importFresh('sliding-context/ai-sdk');
    mastra = importFresh('sliding-context/mastra');
  });

  it('the root entry, the pure core, loads no database, query builder, driver or provider SDK', () => {
    expect(core.names).toEqual(expect.arrayContaining(['planWindow', 'WindowState', 'loadTokenCounter', 'parseMessages', 'SlidingContextError']));
    expect(core.packages.filter((name) => HEAVY.test(name))).toEqual([]);
  });

  it('the store entry holds the history store and the conversation, and is where PGlite and Kysely load', () => {
    expect(store.names).toEqual(expect.arrayContaining(['HistoryStore', 'openConversation', 'Conversation', 'defaultDataDir']));
    // The same watch that finds nothing heavy behind the root finds the database here.
    expect(store.packages).toEqual(expect.arrayContaining(['@electric-sql/pglite', 'kysely']));
  });

  it('the providers entry holds the wire formats, the chat clients and preflight counting, without loading an SDK', () => {
    expect(providers.names).toEqual(expect.arrayContaining(['buildRequest', 'convertFrom', 'detectFormat', 'createPreflightCounter', 'anthropicClient']));
    expect(providers.packages.filter((name) => HEAVY.test(name))).toEqual([]);
  });

  it('no entry but the framework\'s own loads a framework', () => {
    // The Mastra entry needs only Mastra's types: it loads no framework at all.
    for (const entry of [core, store, providers, aiSdk, mastra]) expect(entry.packages.filter((name) => FRAMEWORKS.test(name))).toEqual([]);
    expect(langchain.packages.filter((name) => name.startsWith('@mastra/'))).toEqual([]);
    expect(langchain.names).toEqual(expect.arrayContaining(['slidingContextMiddleware', 'convertFromLangChain', 'convertToLangChain']));
    expect(langchain.packages).toEqual(expect.arrayContaining(['langchain', '@langchain/core']));
  });

  it('the AI SDK entry holds the middleware and loads neither the AI SDK nor a provider SDK (the application brings its own)', () => {
    expect(aiSdk.names).toEqual(expect.arrayContaining(['slidingContext', 'findConversationByPrefix']));
    expect(aiSdk.packages.filter((name) => HEAVY.test(name) || name.startsWith('@ai-sdk/'))).toEqual([]);
  });

  it('the Mastra entry holds the processor and loads neither the AI SDK nor a provider SDK', () => {
    expect(mastra.names).toEqual(expect.arrayContaining(['SlidingContextProcessor', 'MASTRA_EVENT_CHUNK']));
    expect(mastra.packages.filter((name) => HEAVY.test(name) || name.startsWith('@ai-sdk/'))).toEqual([]);
  });

  it('every value the root exported before is exported by one of the three entries', () => {
    const reachable = new Set([...core.names, ...store.names, ...providers.names]);
    expect(EXPORTED_BEFORE.filter((name) => !reachable.has(name))).toEqual([]);
  });
});
