import { z } from 'zod';
import { parseCommandFlags, switchFlag, targetFlagsShape, textFlag } from '../command-flags.js';
import { type DeclareCommand, defaultModelList } from '../command-line.js';
import { DEFAULT_PROVIDER } from '../../tokens/default-target.js';

/** Flags of `demo`. */
export interface DemoFlags {
  /** Tokens or `model`: a flag's text, or the config file's value. */
  readonly budget?: string | number | undefined;
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly dataDir?: string | undefined;
  /** Replay only the first this many exchanges (a quick run). */
  readonly exchanges?: string | undefined;
  readonly json?: boolean | undefined;
}

/** What `demo` declares of its flags, checked when it runs. */
export const demoFlags: z.ZodType<DemoFlags> = z.object({
  budget: targetFlagsShape.budget,
  provider: textFlag(),
  model: textFlag(),
  dataDir: textFlag(),
  exchanges: textFlag(),
  json: switchFlag(),
});

/** `demo`. */
export const declareDemoCommand: DeclareCommand = (program, io) => {
  program
    .command('demo')
    .description('Replay a bundled 160-exchange coding-agent session through a conversation on the embedded PGlite, and show the window slide.')
    .option('--budget <tokens>', 'token budget, or "model" (default: 16000, small so that the window slides)')
    .option('--provider <name>', `provider to count for (default: ${DEFAULT_PROVIDER})`)
    .option('--model <name>', `model to count for (default: the provider's: ${defaultModelList('or')})`)
    .option('--data-dir <dir>', 'keep the replayed agent in this PGlite directory (default: in memory, gone when the demo ends)')
    .option('--exchanges <count>', 'replay only the first N exchanges of the session, at most 160 (default: all 160)')
    .option('--json', 'print the totals and the summary as JSON')
    .addHelpText('after', '\nExamples:\n  sliding-context demo\n  sliding-context demo --provider anthropic --budget 30000 --data-dir ./demo-store')
    .action(async (options: unknown) => {
      const flags = parseCommandFlags(demoFlags, options, 'demo');
      await (await import('./demo-command.js')).runDemoCommand(flags, io);
    });
};
