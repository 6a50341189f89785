import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The path of a file of this package (`package.json`, `examples/…`), found through the package's
 * own name: the same from src/, dist/ and the bundled command line, whose chunks sit at another
 * depth than the modules they were built from.
 */
export function packageFile(relativePath: string): string {
  return join(dirname(createRequire(import.meta.url).resolve('sliding-context/package.json')), relativePath);
}
