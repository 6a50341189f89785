import type { TokenCounter } from '../tokens/token-counter.js';
import type { CliIo } from './cli-io.js';
import { cliModelOverrides } from './cli-model-overrides.js';

/**
 * Loads the real counter for one model, with the catalog overrides of the config file and flags;
 * its warnings go to stderr as `warning: …`. The counting
 * modules load only here, so commands that find every count stored never load them.
 */
export async function loadCliCounter(io: CliIo, provider: string, model: string): Promise<TokenCounter> {
  const { loadTokenCounter } = await import('../tokens/load-token-counter.js');
  return loadTokenCounter({
    targets: [{ provider, model }],
    models: await cliModelOverrides(io, { provider, model }),
    onWarning: (message) => io.stderr.write(`warning: ${message}\n`),
  });
}
