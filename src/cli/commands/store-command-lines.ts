import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, switchFlag, type TargetFlags, targetFlagsShape, textFlag } from '../command-flags.js';
import { type DeclareCommand, POLICY_HELP, storeCommand } from '../command-line.js';

const storeCommands = () => import('./store-commands.js');

/** Flags of `history`. */
export interface HistoryFlags extends StoreCommandFlags, TargetFlags {
  /** Every row back to the first exchange, across clears and the inherited history. */
  readonly all?: boolean | undefined;
  /** The first N rows. */
  readonly limit?: string | undefined;
  /** The last N rows. */
  readonly tail?: string | undefined;
}

/** What the store commands without flags of their own declare (`agents`, `clear`, `marks`, `mark`, `rewind`), checked when they run. */
export const storeCommandFlags: z.ZodType<StoreCommandFlags> = z.object(storeFlagsShape);

/** What `fork` declares of its flags, checked when it runs. */
export const forkFlags: z.ZodType<StoreCommandFlags & { readonly name?: string | undefined }> = z.object({ ...storeFlagsShape, name: textFlag() });

/** What `history` declares of its flags, checked when it runs. */
export const historyFlags: z.ZodType<HistoryFlags> = z.object({
  ...storeFlagsShape,
  ...targetFlagsShape,
  all: switchFlag(),
  limit: textFlag(),
  tail: textFlag(),
});

/** `agents`. */
export const declareAgentsCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'agents', 'List the stored agents with their messages, tokens and last activity.', 'sliding-context agents --json').action(async (options: unknown) => {
    const flags = parseCommandFlags(storeCommandFlags, options, 'agents');
    await (await storeCommands()).runAgentsCommand(flags, io);
  });
};

/** `history <agent>`. */
export const declareHistoryCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'history', 'Show an agent\'s exchanges out of and in the window, with the context rule.', 'sliding-context history <agent-id> --budget 50000')
    .argument('<agent>', 'agent id')
    .option('--budget <tokens>', 'token budget, or "model" (default: the agent\'s)')
    .option('--policy <name>', POLICY_HELP)
    .option('--provider <name>', 'provider to count for (default: the agent\'s)')
    .option('--model <name>', 'model to count for (default: the agent\'s)')
    .option('--all', 'list every exchange back to the first, across clears and the history a fork inherits (default: from the clear before the latest one)')
    .option('--limit <n>', 'show only the first N rows (exchanges and events)')
    .option('--tail <n>', 'show only the last N rows (exchanges and events)')
    .addHelpText('after', '  sliding-context history <agent-id> --all --tail 20')
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(historyFlags, options, 'history');
      await (await storeCommands()).runHistoryCommand(agent, flags, io);
    });
};

/** `fork <agent>`. */
export const declareForkCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'fork', 'Fork an agent: the child sees the history so far and goes on alone.', 'sliding-context fork <agent-id> --name try-postgres')
    .argument('<agent>', 'agent id')
    .option('--name <name>', 'a name for the child, shown by `agents`')
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(forkFlags, options, 'fork');
      await (await storeCommands()).runAgentEventCommand('fork', agent, undefined, flags, io);
    });
};

/** `clear <agent>`. */
export const declareClearCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'clear', 'Clear an agent\'s window (the history keeps everything).', 'sliding-context clear <agent-id>')
    .argument('<agent>', 'agent id')
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(storeCommandFlags, options, 'clear');
      await (await storeCommands()).runAgentEventCommand('clear', agent, undefined, flags, io);
    });
};

/** `marks <agent>`. */
export const declareMarksCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'marks', 'List the marks a rewind of an agent can reach: label, seq, when, and the exchange it comes before.', 'sliding-context marks <agent-id> --json')
    .argument('<agent>', 'agent id')
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(storeCommandFlags, options, 'marks');
      await (await import('./marks-command.js')).runMarksCommand(agent, flags, io);
    });
};

/** `mark <agent> <label>` and `rewind <agent> <label>`. */
export const declareMarkAndRewindCommands: DeclareCommand = (program, io) => {
  for (const [action, description] of [
    ['mark', 'Set a mark in an agent\'s history.'],
    ['rewind', 'Rewind an agent\'s window to a mark (the history keeps what followed).'],
  ] as const) {
    storeCommand(program, action, description, `sliding-context ${action} <agent-id> before-refactor`)
      .argument('<agent>', 'agent id')
      .argument('<label>', 'mark label')
      .action(async (agent: string, label: string, options: unknown) => {
        const flags = parseCommandFlags(storeCommandFlags, options, action);
        await (await storeCommands()).runAgentEventCommand(action, agent, label, flags, io);
      });
  }
};
