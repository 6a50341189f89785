/**
 * Writes a realistic, reproducible coding-agent session: an agent working on a TypeScript REST
 * service, with file reads, searches, edits, failing and passing test runs, parallel calls and
 * an interrupted exchange. Same seed, same file.
 *
 *   npm run example -- [--exchanges 60] [--seed 7] [--out examples/coding-agent-session.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Message, ToolDefinition } from '../src/message/message.js';
import { seededRandom } from './_seeded-random.js';

const { values } = parseArgs({
  options: {
    exchanges: { type: 'string', default: '60' },
    seed: { type: 'string', default: '7' },
    out: { type: 'string', default: 'examples/coding-agent-session.json' },
  },
});

const { random, pick, between } = seededRandom(Number(values.seed));

const entities = ['task', 'project', 'comment', 'label', 'member', 'invoice', 'webhook'];
const fields = ['dueDate', 'priority', 'archivedAt', 'ownerId', 'slug', 'position', 'color'];
const capital = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;

function sourceFile(entity: string, functions: number): string {
  const type = capital(entity);
  const lines = [
    `import { z } from 'zod';`,
    `import type { Database } from '../db/database.js';`,
    `import { NotFoundError, ValidationError } from '../errors.js';`,
    '',
    `export const ${entity}Schema = z.object({`,
    '  id: z.string().uuid(),',
    `  name: z.string().min(1).max(200),`,
    ...fields.slice(0, between(2, 6)).map((field) => `  ${field}: z.string().nullable(),`),
    `  createdAt: z.string().datetime(),`,
    '});',
    `export type ${type} = z.infer<typeof ${entity}Schema>;`,
    '',
  ];
  for (let index = 0; index < functions; index++) {
    const verb = pick(['list', 'find', 'create', 'update', 'archive', 'count', 'reorder']);
    lines.push(
      `/** ${capital(verb)}s ${entity}s for the given workspace. */`,
      `export async function ${verb}${type}s${index || ''}(db: Database, workspaceId: string, input: unknown) {`,
      `  const parsed = ${entity}Schema.partial().safeParse(input);`,
      `  if (!parsed.success) throw new ValidationError(parsed.error.issues);`,
      `  const rows = await db`,
      `    .selectFrom('${entity}s')`,
      `    .where('workspace_id', '=', workspaceId)`,
      `    .orderBy('${pick(fields)}', '${pick(['asc', 'desc'])}')`,
      `    .limit(${pick([20, 50, 100])})`,
      `    .execute();`,
      `  if (rows.length === 0 && '${verb}' === 'find') throw new NotFoundError('${entity}', workspaceId);`,
      `  return rows.map((row) => ${entity}Schema.parse(row));`,
      '}',
      '',
    );
  }
  return lines.join('\n');
}

function testRun(entity: string, failing: boolean): string {
  const passed = between(40, 180);
  const lines = [
    '> service@1.4.0 test',
    '> vitest run',
    '',
    ` RUN  v3.2.4 /workspace/service`,
    '',
    ` ✓ src/${entity}s/${entity}-service.test.ts (${between(8, 30)} tests) ${between(20, 400)}ms`,
    ` ✓ src/auth/session.test.ts (${between(5, 15)} tests) ${between(10, 90)}ms`,
  ];
  if (failing) {
    const field = pick(fields);
    lines.push(
      ` ❯ src/${entity}s/${entity}-routes.test.ts (${between(6, 20)} tests | 2 failed) ${between(50, 300)}ms`,
      `   × GET /${entity}s?limit=10 returns the next cursor`,
      `     → expected undefined to be '${entity}_${between(100, 999)}'`,
      `   × POST /${entity}s rejects an empty ${field}`,
      `     → expected 201 to be 400 // Object.is equality`,
      '',
      '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯',
      '',
      ` FAIL  src/${entity}s/${entity}-routes.test.ts > GET /${entity}s?limit=10 returns the next cursor`,
      `AssertionError: expected undefined to be '${entity}_${between(100, 999)}'`,
      ` ❯ src/${entity}s/${entity}-routes.test.ts:${between(20, 140)}:${between(5, 40)}`,
      '',
      ` Test Files  1 failed | ${between(10, 30)} passed`,
      `      Tests  2 failed | ${passed} passed`,
    );
  } else {
    lines.push('', ` Test Files  ${between(10, 30)} passed`, `      Tests  ${passed} passed`);
  }
  lines.push(`   Duration  ${between(2, 9)}.${between(10, 99)}s`);
  return lines.join('\n');
}

const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace. Returns its text with line numbers.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'list_files',
    description: 'List the files under a directory of the workspace.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'search_text',
    description: 'Search the workspace for a regular expression; returns matching lines.',
    inputSchema: {
      type: 'object',
      properties: { pattern: { type: 'string' }, path: { type: 'string' } },
      required: ['pattern'],
    },
  },
  {
    name: 'edit_file',
    description: 'Replace one exact occurrence of old_text with new_text in a file.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        old_text: { type: 'string' },
        new_text: { type: 'string' },
      },
      required: ['path', 'old_text', 'new_text'],
    },
  },
  {
    name: 'run_command',
    description: 'Run a shell command in the workspace and return its output and exit code.',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    },
  },
];

const requests = [
  (e: string, _f: string) =>
    `Add cursor pagination to GET /${e}s. Keep the default page size at 50.`,
  (e: string, _f: string) =>
    `The ${e} route tests started failing after yesterday's merge. Can you find out why and fix it?`,
  (e: string, f: string) =>
    `Rename the ${f} column on ${e}s to ${f}Utc everywhere, including the migrations.`,
  (e: string, _f: string) =>
    `Validate the body of POST /${e}s with zod and return 400 with the issues.`,
  (e: string, _f: string) =>
    `GET /${e}s/:id returns 500 when the id does not exist. It should be a 404.`,
  (e: string, f: string) => `Write a migration that adds ${f} to ${e}s, nullable, with an index.`,
  (e: string, _f: string) =>
    `Add a test for archiving ${/^[aeiou]/.test(e) ? 'an' : 'a'} ${e} that is already archived.`,
  (e: string, f: string) =>
    `Sort ${e}s by ${f} descending by default, but let clients pass ?sort=.`,
  (e: string, f: string) => `Can you check whether we ever log the ${e} ${f} in plain text?`,
];
const questions = [
  'How does the session middleware decide a token is expired?',
  'What is the difference between NotFoundError and ValidationError in our error handler?',
  'Is there a reason we use Kysely instead of Prisma here?',
  'Summarize what changed in the last few tasks, for the PR description.',
  'Which endpoints are still missing rate limiting?',
];

const messages: Message[] = [];
let callNumber = 0;
const nextId = () => `call_${(++callNumber).toString(36).padStart(4, '0')}`;

function callAndAnswer(
  calls: { name: string; input: Record<string, unknown>; output: string; error?: boolean }[],
  text?: string,
) {
  const ids = calls.map(() => nextId());
  messages.push({
    role: 'assistant',
    content: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...calls.map((call, index) => ({
        type: 'tool-call' as const,
        toolCallId: ids[index] as string,
        toolName: call.name,
        input: call.input,
      })),
    ],
  });
  messages.push({
    role: 'tool',
    content: calls.map((call, index) => ({
      type: 'tool-result' as const,
      toolCallId: ids[index] as string,
      toolName: call.name,
      output: call.error
        ? { type: 'error-text' as const, value: call.output }
        : { type: 'text' as const, value: call.output },
    })),
  });
}

const total = Number(values.exchanges);
const interruptAt = total - 4;
for (let exchange = 0; exchange < total; exchange++) {
  const entity = pick(entities);
  const field = pick(fields);
  const service = `src/${entity}s/${entity}-service.ts`;
  const routes = `src/${entity}s/${entity}-routes.ts`;
  if (exchange > 0 && random() < 0.18) {
    messages.push({ role: 'user', content: pick(questions) });
    messages.push({
      role: 'assistant',
      content: `Short answer: it depends on the ${entity} module. The relevant code lives in ${service}${', where each query is scoped by workspace_id before any filter is applied. '.repeat(between(1, 3))}`,
    });
    continue;
  }
  messages.push({
    role: 'user',
    content:
      exchange === 0
        ? `We are building the task-tracker service in this repo. First, get familiar with the layout, then ${requests[0]?.(entity, field).toLowerCase()}`
        : pick(requests)(entity, field),
  });
  if (exchange === 0) {
    callAndAnswer(
      [
        {
          name: 'list_files',
          input: { path: 'src' },
          output: entities
            .flatMap((e) => [
              `src/${e}s/${e}-service.ts`,
              `src/${e}s/${e}-routes.ts`,
              `src/${e}s/${e}-routes.test.ts`,
            ])
            .join('\n'),
        },
      ],
      'Let me look at the layout first.',
    );
  }
  // Parallel reads of the service and its routes.
  callAndAnswer(
    [
      {
        name: 'read_file',
        input: { path: service },
        output: sourceFile(entity, between(2, random() < 0.15 ? 30 : 8)),
      },
      { name: 'read_file', input: { path: routes }, output: sourceFile(entity, between(1, 4)) },
    ],
    `I'll read the ${entity} service and its routes.`,
  );
  if (exchange === interruptAt) {
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: nextId(),
          toolName: 'run_command',
          input: { command: 'npm test -- --run' },
        },
      ],
    });
    continue; // the user interrupts before the command returns
  }
  if (random() < 0.5) {
    callAndAnswer([
      {
        name: 'search_text',
        input: { pattern: field, path: 'src' },
        output: Array.from(
          { length: between(3, 12) },
          () =>
            `src/${pick(entities)}s/${pick(entities)}-service.ts:${between(5, 200)}:    .orderBy('${field}', 'desc')`,
        ).join('\n'),
      },
    ]);
  }
  callAndAnswer(
    [
      {
        name: 'edit_file',
        input: {
          path: service,
          old_text: `.orderBy('${field}', 'asc')`,
          new_text: `.orderBy('${field}', 'desc')`,
        },
        output: `Edited ${service}: 1 replacement.`,
      },
    ],
    `The problem is in how ${service} orders by ${field}. Fixing it.`,
  );
  const fails = random() < 0.35;
  callAndAnswer([
    {
      name: 'run_command',
      input: { command: 'npm test' },
      output: testRun(entity, fails),
      error: fails,
    },
  ]);
  if (fails) {
    callAndAnswer(
      [
        {
          name: 'edit_file',
          input: {
            path: routes,
            old_text: 'nextCursor: undefined',
            new_text: 'nextCursor: rows.at(-1)?.id',
          },
          output: `Edited ${routes}: 1 replacement.`,
        },
      ],
      'Two route tests fail: the cursor is never set. Fixing the route.',
    );
    callAndAnswer([
      { name: 'run_command', input: { command: 'npm test' }, output: testRun(entity, false) },
    ]);
  }
  messages.push({
    role: 'assistant',
    content:
      `Done. I changed ${service}${fails ? ` and ${routes}` : ''}: ${entity}s are now ordered by ${field} as requested, and the full test suite passes. ${random() < 0.5 ? `One thing to watch: ${field} is nullable, so rows without it sort last.` : ''}`.trim(),
  });
}

const session = {
  system:
    'You are a careful senior engineer working in the task-tracker service repository. Read before you edit, keep changes small, and run the tests after every change. Answer in short paragraphs.',
  tools,
  messages,
};
writeFileSync(values.out, `${JSON.stringify(session, null, 1)}\n`);
console.log(
  `wrote ${values.out}: ${messages.filter((m) => m.role === 'user').length} exchanges, ${messages.length} messages`,
);
