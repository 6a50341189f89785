/**
 * Bundles the command line into dist/cli/main.js (run by `npm run build` after tsc). Node loads
 * an ES module file by file: the query builder and the schema library alone are some 350 files,
 * which cost a short command about a fifth of its run. The bundle holds them in a few chunks,
 * each command's code still loaded only when that command runs (split at its dynamic import).
 * Packages that read files beside their code (PGlite's WebAssembly, the tokenizer tables) or that
 * only some commands use (the provider SDKs, the PostgreSQL driver) stay outside and load as
 * before.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';

/** Pure ES modules of many small files: these go into the bundle. */
const BUNDLED = new Set(['kysely', 'zod', 'image-size', 'llm-zoo', 're2js']);

const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
const external = Object.keys(dependencies).filter((name) => !BUNDLED.has(name));

/**
 * zod's `locales` namespace holds the error messages of some sixty languages, half of zod's code,
 * which every command would parse at start; the command line speaks English, so the bundle's
 * namespace holds English only (the messages zod uses by default, imported on their own anyway).
 */
const englishZodLocales: Plugin = {
  name: 'english-zod-locales',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]v4[/\\](classic|core)[/\\]/.test(args.importer) ? { path: join(dirname(args.importer), '..', 'locales'), namespace: 'english-zod-locales' } : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'english-zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: args.path,
      loader: 'js',
    }));
  },
};

// Chunks are named by their content: the last build's would stay behind.
rmSync('dist/cli/chunks', { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/cli',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: true,
  logLevel: 'warning',
  plugins: [englishZodLocales],
});
