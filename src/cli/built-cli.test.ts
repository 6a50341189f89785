import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'built-cli-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Runs the built command line (`npm run build`) in a child process. */
function built(args: string[]) {
  return spawnSync(process.execPath, ['dist/cli/main.js', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_TOKENS: '' } });
}

describe('the built command line', () => {
  it('holds the query builder and the schema library in its own chunks: no command loads their hundreds of files', () => {
    // Every module the entry point can reach, through static and dynamic imports alike (a type
    // in a doc comment, `{import('./x.js').T}`, is none).
    const reached = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/^(?:import|export)\b[\w$*\s{},]*?\bfrom\s*["']([^"']+)["']|(?<![{\w.])import\(\s*["']([^"']+)["']\s*\)/gm)) {
        const specifier = match[1] ?? match[2] ?? '';
        if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
        else packages.add(specifier);
      }
    };
    visit(join(root, 'dist/cli/main.js'));
    expect(reached.size).toBeGreaterThan(10);
    expect(packages).toContain('@electric-sql/pglite');
    expect([...packages].filter((name) => /^(kysely|zod)(\/|$)/.test(name))).toEqual([]);
  });

  it('finds the package files from its chunks: the version, and the session the demo replays', () => {
    const version = built(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
    const demo = built(['demo', '--exchanges', '2', '--json']);
    expect(demo.stderr).toBe('');
    expect(demo.status).toBe(0);
  });

  it('stores and reads back an agent in a PGlite directory', () => {
    const dataDir = join(work, 'store');
    const file = join(work, 'conversation.json');
    spawnSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(file)}, JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]))`]);
    const imported = built(['import', file, '--data-dir', dataDir, '--json']);
    expect(imported.status, imported.stderr).toBe(0);
    const { agentId } = JSON.parse(imported.stdout) as { agentId: string };
    const agents = built(['agents', '--data-dir', dataDir, '--json']);
    expect(agents.status, agents.stderr).toBe(0);
    expect(agents.stdout).toContain(agentId);
  });

  it('runs PGlite on the baseline WebAssembly compiler on every Node: a command that opens a store stays far below 400 MiB', () => {
    const file = join(work, 'compiler-conversation.json');
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]));
    // The child reports its own peak resident memory (kB) as it exits.
    const report = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`peak ${process.resourceUsage().maxRSS}\\n`))';
    const args = ['--import', report, 'dist/cli/main.js', 'import', file, '--data-dir', join(work, 'compiler-store')];
    const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
    expect(run.status, run.stderr).toBe(0);
    const peakKb = Number(/peak (\d+)/.exec(run.stderr)?.[1]);
    // About 180 MiB with the baseline compiler only; about 490 MiB for this import when V8 also
    // optimizes PGlite's functions, as Node 24 did while the CLI set --liftoff-only alone.
    expect(peakKb / 1024).toBeGreaterThan(50);
    expect(peakKb / 1024).toBeLessThan(400);
  });
});
