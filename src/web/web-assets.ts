import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { packageFile } from '../cli/package-file.js';

/** Where `npm run build` puts the page's files. */
export function webAssetsDir(): string {
  return packageFile('dist/web/app');
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** The asset names the page is built to: nothing else is read from the folder. */
const ASSET_NAME = /^[a-z0-9][a-z0-9.-]*\.(html|js|css|map|png|svg)$/;

/**
 * Answers `/` with the page and `/assets/<name>` with one of its built files from `dir`; false
 * for any other path. A page not built answers 500 saying so.
 */
export async function serveWebAsset(path: string, response: ServerResponse, dir: string): Promise<boolean> {
  const name = path === '/' || path === '/index.html' ? 'index.html' : path.startsWith('/assets/') ? path.slice('/assets/'.length) : undefined;
  if (name === undefined || !ASSET_NAME.test(name)) return false;
  let body: Buffer;
  try {
    body = await readFile(join(dir, name));
  } catch {
    if (name !== 'index.html') return false;
    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('The web view is not built: run `npm run build` (it writes dist/web/app).\n');
    return true;
  }
  response.writeHead(200, {
    'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...(name === 'index.html' ? { 'content-security-policy': 'default-src \'self\'; style-src \'self\' \'unsafe-inline\'; img-src \'self\' data:' } : {}),
  });
  response.end(body);
  return true;
}
