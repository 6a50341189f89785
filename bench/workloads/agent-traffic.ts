/**
 * Seeded, realistic coding-agent traffic for the window benchmarks: exchanges with tool loops,
 * parallel calls and now and then a very large tool output (a build log, a whole file). The same
 * seed gives the same messages. Tool outputs are slices of one generated corpus, so a million
 * messages cost object headers, not a gigabyte of text, while no two outputs are the same.
 */
import type { ModelMessage, ToolDefinition } from '../../src/message/message.js';
import { seededRandom } from '../../scripts/_seeded-random.js';

/** The seed every benchmark's traffic starts from. */
export const TRAFFIC_SEED = 2026;

export const TRAFFIC_SYSTEM = 'You are a coding agent working in a TypeScript repository. Read before you edit, run the tests after every change, and keep answers short.';

export const TRAFFIC_TOOLS: readonly ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file of the repository.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'search', description: 'Search the repository with a regular expression.', inputSchema: { type: 'object', properties: { pattern: { type: 'string' }, glob: { type: 'string' } }, required: ['pattern'] } },
  { name: 'edit_file', description: 'Replace a unique string in a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } }, required: ['path', 'old', 'new'] } },
  { name: 'run_tests', description: 'Run the test suite, or one file of it.', inputSchema: { type: 'object', properties: { file: { type: 'string' } } } },
];

const modules = ['auth', 'billing', 'invoices', 'webhooks', 'search', 'members', 'projects', 'labels', 'comments', 'exports'];
const verbs = ['Fix', 'Refactor', 'Add a test for', 'Speed up', 'Document', 'Rename the helpers in', 'Find the flaky test in'];
const asks = ['then run the suite again', 'keep the public API as it is', 'and explain what was wrong', 'without touching the migrations', 'and update the changelog'];

/** About 2 MB of code, logs and JSON to cut tool outputs from. */
function buildCorpus(random: ReturnType<typeof seededRandom>): string {
  const { pick, between } = random;
  const lines: string[] = [];
  for (let index = 0; lines.length < 40_000; index++) {
    const module = pick(modules);
    switch (between(0, 3)) {
      case 0:
        lines.push(`export async function ${pick(['list', 'find', 'create', 'update'])}${module}${index}(db: Database, id: string) {`, `  const rows = await db.selectFrom('${module}').where('id', '=', id).limit(${between(1, 200)}).execute();`, '  return rows.map(toModel);', '}');
        break;
      case 1:
        lines.push(`${new Date(1_700_000_000_000 + index * 997).toISOString()} ${pick(['INFO', 'WARN', 'DEBUG'])} ${module} request ${index} took ${between(1, 900)} ms (${between(100, 599)})`);
        break;
      case 2:
        lines.push(JSON.stringify({ id: `${module}-${index}`, status: pick(['open', 'closed', 'draft']), amount: between(1, 99_999) / 100, tags: [pick(modules), pick(modules)] }));
        break;
      default:
        lines.push(`  ✓ ${module} › ${pick(['handles', 'rejects', 'paginates', 'retries'])} case ${index} (${between(1, 120)} ms)`);
    }
  }
  return lines.join('\n');
}

/** Everything the generator needs to carry from one exchange to the next. */
export interface AgentTraffic {
  /** The next exchange: a user message, its tool loop, the final answer. */
  nextExchange(): ModelMessage[];
  /** Whole exchanges until at least `messages` messages. */
  history(messages: number): ModelMessage[];
}

/** A seeded stream of agent exchanges. */
export function agentTraffic(seed: number): AgentTraffic {
  const random = seededRandom(seed);
  const { pick, between } = random;
  const corpus = buildCorpus(random);
  let call = 0;
  const excerpt = (length: number) => {
    const start = between(0, corpus.length - length - 1);
    return corpus.slice(start, start + length);
  };
  const output = () => {
    // One output in twenty is large: a full build log or a long file.
    const length = random.random() < 1 / 20 ? between(6_000, 30_000) : between(100, 1_500);
    return excerpt(length);
  };
  const toolCall = () => {
    const toolName = pick(TRAFFIC_TOOLS).name;
    const module = pick(modules);
    const input = toolName === 'search' ? { pattern: `${module}\\w+`, glob: 'src/**/*.ts' } : toolName === 'run_tests' ? { file: `src/${module}.test.ts` } : toolName === 'edit_file' ? { path: `src/${module}.ts`, old: excerpt(60), new: excerpt(60) } : { path: `src/${module}/index.ts` };
    return { type: 'tool-call' as const, toolCallId: `call_${seed.toString(36)}_${(call++).toString(36)}`, toolName, input };
  };
  const nextExchange = (): ModelMessage[] => {
    const module = pick(modules);
    const messages: ModelMessage[] = [{ role: 'user', content: `${pick(verbs)} the ${module} module, ${pick(asks)}.` }];
    const steps = between(0, 6);
    for (let step = 0; step < steps; step++) {
      // Three steps in ten call several tools at once.
      const calls = Array.from({ length: random.random() < 0.3 ? between(2, 4) : 1 }, toolCall);
      const thought = random.random() < 0.6 ? [{ type: 'text' as const, text: `Looking at ${module}: ${excerpt(between(40, 200)).replaceAll('\n', ' ')}` }] : [];
      messages.push({ role: 'assistant', content: [...thought, ...calls] });
      messages.push({
        role: 'tool',
        content: calls.map(({ toolCallId, toolName }) => ({ type: 'tool-result' as const, toolCallId, toolName, output: { type: 'text' as const, value: output() } })),
      });
    }
    messages.push({ role: 'assistant', content: `Done with ${module}: ${excerpt(between(80, 600)).replaceAll('\n', ' ')}` });
    return messages;
  };
  return {
    nextExchange,
    history(size) {
      const messages: ModelMessage[] = [];
      while (messages.length < size) messages.push(...nextExchange());
      return messages;
    },
  };
}
