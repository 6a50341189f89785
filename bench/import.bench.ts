/**
 * What one import costs an application: the time to import a name from the built package in a
 * fresh Node process (the median of 9 processes), and the size of a bundle that imports it
 * (esbuild, `--bundle --minify --platform=node`). `npm run bench -- --only import`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { formatMs, markdownTable, median } from './_table.js';

const PROCESSES = 9;
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** One import an application writes, e.g. `import { planWindow } from 'sliding-context'`. */
export interface ImportCase {
  readonly name: string;
  readonly from: string;
}

const CASES: readonly ImportCase[] = [
  { name: 'planWindow', from: 'sliding-context' },
  { name: 'convertFrom', from: 'sliding-context/providers' },
  { name: 'openConversation', from: 'sliding-context/store' },
];

/** Milliseconds to import `name` in a fresh process, started in `packageDir` (the package imports itself by name). */
function importMs(packageDir: string, { name, from }: ImportCase): number {
  const code = `const start = performance.now(); const { ${name} } = await import('${from}');
if (typeof ${name} !== 'function') throw new Error('${name} is not exported by ${from}');
console.log(performance.now() - start);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, encoding: 'utf8' }));
}

/** Bytes of a minified Node bundle of a module that imports `name` and uses it. */
async function bundleBytes(packageDir: string, { name, from }: ImportCase): Promise<number> {
  const result = await build({
    stdin: { contents: `import { ${name} } from '${from}';\nconsole.log(${name});\n`, resolveDir: packageDir, loader: 'js' },
    bundle: true, minify: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent',
    // Optional dependencies loaded at run time where present (pg's native bindings) stay outside the bundle.
    external: ['pg-native'],
  });
  return result.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
}

/** The import time (median of 9 fresh processes) and bundle size of one import, from the package built in `packageDir`. */
export async function measureImport(packageDir: string, importCase: ImportCase): Promise<{ ms: number; bytes: number }> {
  const samples = Array.from({ length: PROCESSES }, () => importMs(packageDir, importCase));
  return { ms: median(samples), bytes: await bundleBytes(packageDir, importCase) };
}

export async function runImportBenchmarks(): Promise<string[]> {
  const rows: string[][] = [];
  for (const importCase of CASES) {
    const { ms, bytes } = await measureImport(repoRoot, importCase);
    rows.push([`\`import { ${importCase.name} } from '${importCase.from}'\``, formatMs(ms), bytes.toLocaleString('en-US')]);
  }
  const header = ['import', `import time, ms (median of ${PROCESSES} fresh processes)`, 'bundle, bytes (esbuild, minified, platform node)'];
  return [`### Importing one name from each entry point\n\n${markdownTable(header, rows)}`];
}
