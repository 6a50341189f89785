/**
 * Builds the web view's page (web/) into `outDir`: index.html, app.js (Preact, uPlot and the
 * page in one file) and app.css. Nothing is fetched at run time.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

export async function bundleWebApp(outDir: string, { minify = true }: { readonly minify?: boolean } = {}): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: { app: 'web/app.tsx' },
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'web/tsconfig.json',
    minify,
    sourcemap: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  copyFileSync('web/index.html', join(outDir, 'index.html'));
}
