import type { CountTarget, TokenCounter } from '../tokens/token-counter.js';
import type { CliIo } from './cli-io.js';
import { cliModelOverrides } from './cli-model-overrides.js';

/**
 * Loads the real counter for one model, with the catalog overrides of the config file and flags;
 * its warnings go to stderr as `warning: …` (or to `warn`). The counting
 * modules load only here, so commands that find every count stored never load them.
 */
export async function loadCliCounter(io: CliIo, provider: string, model: string, warn = (message: string) => io.stderr.write(`warning: ${message}\n`)): Promise<TokenCounter> {
  const { loadTokenCounter } = await import('../tokens/load-token-counter.js');
  return loadTokenCounter({
    targets: [{ provider, model }],
    models: await cliModelOverrides(io, { provider, model }),
    onWarning: warn,
  });
}

/**
 * Starts loading the counter for `expected` now, so that the tokenizer loads while the store
 * opens; the loader returned gives it (its warnings written only then, as if it loaded then),
 * or loads the counter for another target.
 */
export function preloadCliCounter(io: CliIo, expected: CountTarget): (target: CountTarget) => Promise<TokenCounter> {
  let held: string[] | undefined = [];
  const warn = (message: string) => (held ? held.push(message) : io.stderr.write(`warning: ${message}\n`));
  const loading = loadCliCounter(io, expected.provider, expected.model, warn);
  // Not taken when the store fails to open: that failure is the one to report.
  loading.catch(() => undefined);
  return async (target) => {
    if (target.provider !== expected.provider || target.model !== expected.model) return loadCliCounter(io, target.provider, target.model);
    try {
      return await loading;
    } finally {
      const warnings = held ?? [];
      held = undefined;
      for (const message of warnings) warn(message);
    }
  };
}
