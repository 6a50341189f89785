import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, type TargetFlags, targetFlagsShape } from '../command-flags.js';
import { type DeclareCommand, POLICY_HELP, storeCommand } from '../command-line.js';

/** Flags of `uncompact`. */
export type UncompactFlags = StoreCommandFlags & TargetFlags;

/** What `uncompact` declares of its flags, checked when it runs. */
export const uncompactFlags: z.ZodType<UncompactFlags> = z.object({ ...storeFlagsShape, ...targetFlagsShape });

/** `uncompact <agent>`. */
export const declareUncompactCommand: DeclareCommand = (program, io) => {
  storeCommand(
    program,
    'uncompact',
    'Undo an agent\'s latest compaction: the window is what it was before the summary, which stays in the history; again, it steps back through earlier summaries.',
    'sliding-context uncompact <agent-id>',
  )
    .argument('<agent>', 'agent id')
    .option('--policy <name>', POLICY_HELP)
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(uncompactFlags, options, 'uncompact');
      await (await import('./uncompact-command.js')).runUncompactCommand(agent, flags, io);
    });
};
