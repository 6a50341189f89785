import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, switchFlag, type TargetFlags, targetFlagsShape, textFlag } from '../command-flags.js';
import { type DeclareCommand, POLICY_HELP, storeCommand } from '../command-line.js';

/** Flags of `compact`. */
export interface CompactFlags extends StoreCommandFlags, TargetFlags {
  readonly summarizer?: string | undefined;
  readonly summarizerProvider?: string | undefined;
  readonly summarizerModel?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly dryRun?: boolean | undefined;
  /** Apply without asking, on a terminal too. */
  readonly yes?: boolean | undefined;
}

/** What `compact` declares of its flags, checked when it runs. */
export const compactFlags: z.ZodType<CompactFlags> = z.object({
  ...storeFlagsShape,
  ...targetFlagsShape,
  summarizer: textFlag(),
  summarizerProvider: textFlag(),
  summarizerModel: textFlag(),
  baseUrl: textFlag(),
  dryRun: switchFlag(),
  yes: switchFlag(),
});

/** `compact <agent>`. */
export const declareCompactCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'compact', 'Condense an agent\'s history into the pinned summary, shown before it replaces anything.', 'sliding-context compact <agent-id> --dry-run')
    .argument('<agent>', 'agent id')
    .option('--summarizer <name>', 'digest (no model) or llm (asks --summarizer-provider)', 'digest')
    .option('--summarizer-provider <name>', 'openai (also any OpenAI-compatible --base-url) or anthropic; key from OPENAI_API_KEY or ANTHROPIC_API_KEY', 'openai')
    .option('--summarizer-model <name>', 'the summarizer\'s own model (default: gpt-4o-mini, or claude-haiku-4-5)')
    .option('--base-url <url>', 'an OpenAI-compatible server for the summarizer (llama.cpp, vLLM, Ollama)')
    .option('--policy <name>', POLICY_HELP)
    .option('--dry-run', 'show the summary and change nothing')
    .option('--yes', 'apply without asking (on a terminal compact shows the summary and asks first)')
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(compactFlags, options, 'compact');
      await (await import('./compact-command.js')).runCompactCommand(agent, flags, io);
    });
};
