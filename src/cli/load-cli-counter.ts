import type { TokenCounter } from '../tokens/token-counter.js';
import { loadTokenCounter } from '../tokens/load-token-counter.js';
import type { CliIo } from './cli-io.js';

/** Loads the real counter for one model; its warnings go to stderr as `warning: …`. */
export function loadCliCounter(io: CliIo, provider: string, model: string): Promise<TokenCounter> {
  return loadTokenCounter({
    targets: [{ provider, model }],
    onWarning: (message) => io.stderr.write(`warning: ${message}\n`),
  });
}
