import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectories } from './make-directories.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const parent = mkdtempSync(join(tmpdir(), 'sc-mkdir-'));
afterAll(() => {
  rmSync(parent, { recursive: true, force: true });
});

describe('makeDirectories', () => {
  it('makes the missing directories, each owner-only, and leaves one already there', () => {
    const path = join(parent, 'a', 'b', 'c');
    makeDirectories(path, 0o700);
    makeDirectories(path, 0o700);
    for (const each of [join(parent, 'a'), join(parent, 'a', 'b'), path]) expect(statSync(each).mode & 0o777).toBe(0o700);
  });

  it('throws the error of a directory it cannot make: under a file, and under /proc, where a recursive mkdirSync loops forever', () => {
    const file = join(parent, 'file');
    writeFileSync(file, '');
    expect(() => {
      makeDirectories(join(file, 'x'), 0o700);
    }).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    // In a child process with a deadline: the loop blocks the thread and ignores SIGTERM.
    const under = JSON.stringify('/proc/sliding-context-test/store');
    const script = `import('./src/store/make-directories.ts').then((m) => { try { m.makeDirectories(${under}, 0o700); } catch (error) { console.log(error.code); } })`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: root, timeout: 30_000, killSignal: 'SIGKILL', encoding: 'utf8' });
    expect(child.signal, child.stderr).toBeNull();
    expect(child.stdout.trim()).toMatch(/^(ENOENT|EACCES)$/);
  });
});
