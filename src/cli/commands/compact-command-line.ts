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
  /** The last exchange to condense, as `history` numbers it (`12` or `#12`). */
  readonly through?: string | undefined;
  /** What the summary should keep above all. */
  readonly focus?: string | undefined;
  /** The most of the budget the summary may take: a flag's or env var's text, or the config file's number. */
  readonly maxSummaryShare?: string | number | undefined;
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
  through: textFlag(),
  focus: textFlag(),
  maxSummaryShare: z.union([z.string(), z.number()]).optional(),
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
    .option('--through <exchange>', 'condense only up to this exchange, as history numbers them (the latest always stays)')
    .option('--focus <text>', 'what the summary should keep above all: the LLM summarizer is asked for it, the digest shows it first')
    .option('--max-summary-share <fraction>', 'the most of the budget the summary may take (default 0.1, at most 0.5)')
    .option('--dry-run', 'show the summary and change nothing')
    .option('--yes', 'apply without asking (on a terminal compact shows the summary and asks first)')
    .addHelpText('after', '  sliding-context compact <agent-id> --through 40 --focus "the payments refactor"')
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(compactFlags, options, 'compact');
      await (await import('./compact-command.js')).runCompactCommand(agent, flags, io);
    });
};
