import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, type TargetFlags, targetFlagsShape, textFlag } from '../command-flags.js';
import { type DeclareCommand, POLICY_HELP, storeCommand } from '../command-line.js';

/** Flags of `pin` and `unpin`. */
export interface PinFlags extends StoreCommandFlags, TargetFlags {
  /** The agent the seq is of: an ancestor, for a message the agent inherited (default: the agent). */
  readonly from?: string | undefined;
}

/** What `pin` and `unpin` declare of their flags, checked when they run. */
export const pinFlags: z.ZodType<PinFlags> = z.object({ ...storeFlagsShape, ...targetFlagsShape, from: textFlag() });

/** `pin <agent> <seq>` and `unpin <agent> <seq>`. */
export const declarePinCommands: DeclareCommand = (program, io) => {
  for (const [action, description] of [
    ['pin', 'Pin a message: it is sent word for word in every window, in place or hoisted after the preamble.'],
    ['unpin', 'Unpin a pinned message: it leaves the window with its exchange again.'],
  ] as const) {
    storeCommand(program, action, description, `sliding-context ${action} <agent-id> 3`)
      .argument('<agent>', 'agent id')
      .argument('<seq>', 'the seq of the message (as `history --all --json` and `export` give it)')
      .option('--from <agent>', 'the ancestor the seq is of, for a message a fork inherited (default: the agent itself)')
      .option('--budget <tokens>', 'token budget the pin must leave room in, or "model" (default: the agent\'s)')
      .option('--policy <name>', POLICY_HELP)
      .option('--provider <name>', 'provider to count for (default: the agent\'s)')
      .option('--model <name>', 'model to count for (default: the agent\'s)')
      .action(async (agent: string, seq: string, options: unknown) => {
        const flags = parseCommandFlags(pinFlags, options, action);
        await (await import('./pin-command.js')).runPinCommand(action, agent, seq, flags, io);
      });
  }
};
