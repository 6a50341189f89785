import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelMessage, ToolResultOutput } from '../message/message.js';
import { DIGEST_HEADING, digestExchange, digestSummarizer } from './digest-summarizer.js';
import { readToolCall } from './_tool-call-reading.js';
import { toolOutcome } from './_tool-outcome.js';

const countTokens = (text: string) => Math.ceil(text.length / 4);

let callId = 0;
/** One exchange: a request, then each step as a tool call answered by its result, then the answer. */
function exchange(request: string, steps: readonly { name: string; input: unknown; output?: ToolResultOutput }[], answer = 'Done.'): ModelMessage[] {
  const ids = steps.map(() => `call-${callId++}`);
  return [
    { role: 'user', content: request },
    { role: 'assistant', content: steps.map((step, index) => ({ type: 'tool-call' as const, toolCallId: ids[index]!, toolName: step.name, input: step.input })) },
    { role: 'tool', content: steps.map((step, index) => ({ type: 'tool-result' as const, toolCallId: ids[index]!, toolName: step.name, output: step.output ?? { type: 'text' as const, value: 'ok' } })) },
    { role: 'assistant', content: answer },
  ];
}

async function digest(exchanges: readonly ModelMessage[][], previousSummary?: string, maxTokens = 10_000): Promise<string> {
  return (await digestSummarizer().summarize({ exchanges, previousSummary, maxTokens, countTokens })).text;
}

const section = (text: string, title: string) => {
  const lines = text.split('\n');
  const start = lines.indexOf(title);
  if (start === -1) return [];
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('- '));
  return lines.slice(start + 1, end === -1 ? undefined : end).map((line) => line.slice(2));
};

describe('digestSummarizer: requests and constraints', () => {
  it('keeps each request whole up to 600 characters, and the sentences with a rule word or a number verbatim', async () => {
    const rules = 'You must never touch src/generated/schema.ts. Always run the linter. Don\'t add dependencies. Limit lines to 120 characters. This sentence has no rule.';
    const short = `Refactor the parser.\n${rules}`;
    const long = `${'Keep it readable. '.repeat(40)}${rules}`;
    const text = await digest([exchange(short, []), exchange(long, [])]);
    expect(section(text, 'Requests:')).toEqual([short.replace(/\s+/g, ' '), `${long.slice(0, 599)}…`]);
    // Shown once: the whole first request holds them; the clipped second one would not.
    expect(text.split('You must never touch').length).toBe(2);
    expect(section(text, 'Constraints (verbatim):')).toEqual([]);
    const clipped = await digest([exchange(long, [])]);
    expect(section(clipped, 'Constraints (verbatim):')).toEqual(['You must never touch src/generated/schema.ts.', 'Always run the linter.', 'Don\'t add dependencies.', 'Limit lines to 120 characters.']);
  });
});

describe('digestSummarizer: files from every tool shape', () => {
  const cases: [string, string, unknown, [string, string][]][] = [
    ['Claude Code Read', 'Read', { file_path: '/repo/src/a.ts' }, [['/repo/src/a.ts', 'read']]],
    ['Claude Code Edit', 'Edit', { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' }, [['src/a.ts', 'edited']]],
    ['Claude Code MultiEdit', 'MultiEdit', { file_path: 'src/a.ts', edits: [{ old_string: 'x', new_string: 'y' }] }, [['src/a.ts', 'edited']]],
    ['Claude Code Write', 'Write', { file_path: 'src/new.ts', content: 'export {}' }, [['src/new.ts', 'created']]],
    ['Claude Code Glob', 'Glob', { pattern: '**/*.ts', path: 'src/lib' }, [['src/lib', 'read']]],
    ['Claude Code Grep', 'Grep', { pattern: 'total', path: 'src/invoice.ts' }, [['src/invoice.ts', 'read']]],
    ['Claude Code Bash cat', 'Bash', { command: 'cat src/a.ts | head -5' }, [['src/a.ts', 'read']]],
    ['Bash sed -n', 'Bash', { command: 'sed -n \'1,40p\' src/b.ts' }, [['src/b.ts', 'read']]],
    ['Bash sed -i', 'Bash', { command: 'sed -i \'s/a/b/\' src/b.ts' }, [['src/b.ts', 'edited']]],
    ['Bash rg', 'Bash', { command: 'rg -n "total" src/c.ts src/d.ts' }, [['src/c.ts', 'read'], ['src/d.ts', 'read']]],
    ['Bash ls', 'Bash', { command: 'ls -la src/lib' }, [['src/lib', 'read']]],
    ['Bash redirections', 'Bash', { command: 'echo hi > out/log.txt && echo more >> out/all.txt' }, [['out/log.txt', 'created'], ['out/all.txt', 'edited']]],
    ['Bash rm and mv', 'Bash', { command: 'rm old.ts; mv a.ts b.ts' }, [['old.ts', 'deleted'], ['a.ts', 'deleted'], ['b.ts', 'created']]],
    ['Codex shell words', 'shell', { command: ['bash', '-lc', 'cat src/cli.ts'], workdir: '/repo' }, [['src/cli.ts', 'read']]],
    ['Codex shell plain words', 'shell', { command: ['sed', '-n', '1,20p', 'src/cli.ts'] }, [['src/cli.ts', 'read']]],
    ['Codex exec_command', 'exec_command', { cmd: 'rg -n option src/main.rs' }, [['src/main.rs', 'read']]],
    ['Codex apply_patch', 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/cli.ts\n@@\n+x\n*** Add File: src/new.ts\n+y\n*** Delete File: src/old.ts\n*** End Patch' }, [['src/cli.ts', 'edited'], ['src/new.ts', 'created'], ['src/old.ts', 'deleted']]],
    ['Codex apply_patch through the shell', 'shell', { command: ['apply_patch', '*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch'] }, [['docs/a.md', 'created']]],
    ['generic read_file', 'read_file', { path: 'lib/x.py' }, [['lib/x.py', 'read']]],
    ['generic write_file', 'write_file', { filename: 'lib/y.py', content: 'pass' }, [['lib/y.py', 'created']]],
    ['generic edit_file', 'edit_file', { path: 'lib/x.py', old_text: 'a', new_text: 'b' }, [['lib/x.py', 'edited']]],
    ['generic delete_file', 'delete_file', { file_path: 'lib/z.py' }, [['lib/z.py', 'deleted']]],
    ['Anthropic text editor', 'str_replace_based_edit_tool', { command: 'str_replace', path: 'app.rb', old_str: 'a', new_str: 'b' }, [['app.rb', 'edited']]],
  ];
  it.each(cases)('%s', (_, toolName, input, expected) => {
    expect(readToolCall({ toolName, input }).touches.map((touch) => [touch.path, touch.action])).toEqual(expected);
  });

  it('keeps the last action on each file, most recent last; a Write over a known file is an edit', async () => {
    const text = await digest([
      exchange('Look around.', [{ name: 'Read', input: { file_path: 'a.ts' } }, { name: 'Read', input: { file_path: 'b.ts' } }]),
      exchange('Change a.', [{ name: 'Write', input: { file_path: 'a.ts', content: '' } }]),
    ]);
    expect(section(text, 'Files (last action):')).toEqual(['b.ts: read', 'a.ts: edited']);
  });
});

describe('digestSummarizer: commands and errors', () => {
  it('reads the exit code from Codex metadata, from "Exit code: N" text, and a failure from an error result', () => {
    expect(toolOutcome({ type: 'text', value: '{"output":"src/cli.ts:12: x\\n","metadata":{"exit_code":0}}' })).toEqual({ exitCode: 0, failed: false, errorLine: undefined });
    expect(toolOutcome({ type: 'text', value: 'Exit code: 2\nWall time: 1 seconds\nOutput:\nbuilding\nerror[E0308]: mismatched types' })).toEqual({ exitCode: 2, failed: true, errorLine: 'error[E0308]: mismatched types' });
    expect(toolOutcome({ type: 'error-text', value: 'FAIL tests/invoices.test.ts\n  column "due_date" does not exist' })).toEqual({ exitCode: undefined, failed: true, errorLine: 'FAIL tests/invoices.test.ts' });
  });

  it('lists each command with its latest outcome and first error line', async () => {
    const text = await digest([exchange('Test it.', [
      { name: 'Bash', input: { command: 'npm run lint' } },
      { name: 'shell', input: { command: ['bash', '-lc', 'cargo build'] }, output: { type: 'text', value: '{"output":"error: could not compile\\n","metadata":{"exit_code":101}}' } },
    ])]);
    expect(section(text, 'Commands (outcome):')).toEqual(['`npm run lint` → ok', '`cargo build` → exit 101: error: could not compile']);
  });

  it('marks an error resolved when a later run of the same work succeeds, across passes too', async () => {
    const failing = exchange('Fix the tests.', [
      { name: 'Bash', input: { command: 'npm test -- invoices' }, output: { type: 'error-text', value: 'FAIL tests/invoices.test.ts' } },
      { name: 'Edit', input: { file_path: 'src/x.ts', old_string: 'a', new_string: 'b' }, output: { type: 'error-text', value: 'String to replace not found in file.' } },
    ]);
    const first = await digest([failing]);
    expect(section(first, 'Errors:')).toEqual(['[unresolved] `npm test -- invoices`: FAIL tests/invoices.test.ts', '[unresolved] `Edit src/x.ts`: String to replace not found in file.']);
    const second = await digest([exchange('Again.', [{ name: 'Bash', input: { command: 'npm test' }, output: { type: 'text', value: 'Tests 14 passed' } }])], first);
    expect(section(second, 'Errors:')).toEqual(['[resolved] `npm test -- invoices`: FAIL tests/invoices.test.ts', '[unresolved] `Edit src/x.ts`: String to replace not found in file.']);
  });
});

describe('digestSummarizer: decisions, ledger and open items', () => {
  it('keeps the final answer, shortened, and a ledger line for what an exchange changed', async () => {
    const text = await digest([exchange('Rename total to amount.', [
      { name: 'Read', input: { file_path: 'src/a.ts' } },
      { name: 'Edit', input: { file_path: 'src/a.ts', old_string: 'total', new_string: 'amount' } },
      { name: 'Write', input: { file_path: 'src/b.ts', content: '' } },
    ], `Renamed it. ${'Details. '.repeat(40)}`)]);
    expect(section(text, 'Decisions:')[0]).toMatch(/^Renamed it\. Details\..*…$/);
    expect(section(text, 'Decisions:')[0]!.length).toBe(240);
    expect(section(text, 'Done:')).toEqual(['Rename total to amount.: edited src/a.ts; created src/b.ts']);
  });

  it('shows the open items of the latest TodoWrite or update_plan, and moves completed ones to the ledger', async () => {
    const todo = exchange('Plan it.', [{ name: 'TodoWrite', input: { todos: [
      { content: 'Read the model', status: 'completed', activeForm: 'Reading' },
      { content: 'Rename the field', status: 'in_progress', activeForm: 'Renaming' },
      { content: 'Run the tests', status: 'pending', activeForm: 'Running' },
    ] } }]);
    const first = await digest([todo]);
    expect(section(first, 'Open items:')).toEqual(['[in progress] Rename the field', '[pending] Run the tests']);
    expect(section(first, 'Done:')).toEqual(['Read the model']);
    const plan = exchange('Go on.', [{ name: 'update_plan', input: { explanation: 'next', plan: [{ step: 'Rename the field', status: 'completed' }, { step: 'Run the tests', status: 'in_progress' }] } }]);
    const second = await digest([plan], first);
    expect(section(second, 'Open items:')).toEqual(['[in progress] Run the tests']);
    expect(section(second, 'Done:')).toEqual(['Read the model', 'Rename the field']);
  });
});

describe('digestSummarizer: rolling and capped', () => {
  it('merges a new digest into the previous one, and keeps constraints and files when the cap bites', async () => {
    const exchanges = Array.from({ length: 30 }, (_, index) => exchange(`Task ${index}: update module ${index}. Never change the public API.`, [
      { name: 'Read', input: { file_path: `src/module-${index}.ts` } },
      { name: 'Edit', input: { file_path: `src/module-${index}.ts`, old_string: 'a', new_string: 'b' } },
      { name: 'Bash', input: { command: `npm test -- module-${index}` } },
    ], `Module ${index} is updated and its tests pass; nothing else changed.`));
    let text: string | undefined;
    for (const one of exchanges) {
      text = await digest([one], text, 900);
      expect(countTokens(text)).toBeLessThanOrEqual(900);
    }
    const files = section(text!, 'Files (last action):');
    expect(files).toHaveLength(30);
    // The constraint stays, in a request or on its own once no request shown holds it.
    expect(text).toContain('Never change the public API.');
    // Old answers and passing commands gave way first.
    expect(section(text!, 'Decisions:').length).toBeLessThan(30);
  });

  it('puts a focus first, under its own title; later digests keep it until another replaces it, and it gives way last', async () => {
    const summarize = (previousSummary: string | undefined, focus: string | undefined, maxTokens = 10_000) =>
      digestSummarizer().summarize({ exchanges: [exchange('Add the payments endpoint.', [{ name: 'Read', input: { file_path: 'src/pay.ts' } }])], previousSummary, maxTokens, countTokens, focus });
    const first = (await summarize(undefined, '  the payments\n  retry logic ')).text;
    expect(first.split('\n').slice(0, 4)).toEqual([DIGEST_HEADING, 'Focus (asked for):', '- the payments retry logic', 'Requests:']);
    const rolled = await digest([exchange('Next.', [])], first);
    expect(section(rolled, 'Focus (asked for):')).toEqual(['the payments retry logic']);
    expect(section((await summarize(rolled, 'the CLI flags')).text, 'Focus (asked for):')).toEqual(['the CLI flags']);
    const focusOnly = `${DIGEST_HEADING}\nFocus (asked for):\n- the payments retry logic`;
    expect((await summarize(undefined, 'the payments retry logic', countTokens(focusOnly))).text).toBe(focusOnly);
  });

  it('reads back a summary that is no digest as earlier lines', async () => {
    const text = await digest([exchange('Next.', [])], 'The user wants a CLI.\nIt has a --verbose flag.');
    expect(section(text, 'Earlier summary:')).toEqual(['The user wants a CLI.', 'It has a --verbose flag.']);
  });

  it('digests one exchange under the heading', () => {
    expect(digestExchange(exchange('Hello.', [])).split('\n')).toEqual([DIGEST_HEADING, 'Requests:', '- Hello.', 'Decisions:', '- Done.']);
  });

  const step = fc.record({
    name: fc.constantFrom('Read', 'Edit', 'Write', 'Bash', 'shell', 'apply_patch', 'TodoWrite', 'read_file'),
    path: fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.ts$/),
    failed: fc.boolean(),
  }).map(({ name, path, failed }) => ({
    name,
    input: name === 'Bash' ? { command: `cat ${path} && npm test` } : name === 'shell' ? { command: ['bash', '-lc', `sed -n 1,9p ${path}`] } : name === 'apply_patch' ? { input: `*** Begin Patch\n*** Update File: ${path}\n*** End Patch` } : name === 'TodoWrite' ? { todos: [{ content: `check ${path}`, status: 'pending' }] } : { file_path: path },
    output: failed ? { type: 'error-text' as const, value: `Error: ${path} failed` } : { type: 'text' as const, value: 'ok' },
  }));
  const history = fc.array(fc.array(fc.record({ request: fc.string({ maxLength: 300 }), steps: fc.array(step, { maxLength: 4 }), answer: fc.string({ maxLength: 300 }) }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 });

  it('is deterministic and always within the cap (with room for the heading), pass after pass', async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.integer({ min: countTokens(DIGEST_HEADING), max: 600 }), async (passes, maxTokens) => {
        const build = () => passes.map((pass) => pass.map(({ request, steps, answer }) => exchange(request.trim() === '' ? 'Go.' : request, steps, answer)));
        const run = async () => {
          callId = 0;
          let text: string | undefined;
          const texts: string[] = [];
          for (const pass of build()) {
            text = await digest(pass, text, maxTokens);
            texts.push(text);
          }
          return texts;
        };
        const first = await run();
        expect(await run()).toEqual(first);
        for (const text of first) expect(countTokens(text)).toBeLessThanOrEqual(maxTokens);
      }),
      { numRuns: 150 },
    );
  });
});
