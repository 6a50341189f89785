import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, textFlag } from '../command-flags.js';
import { type DeclareCommand, defaultModelList, inputFormatList, storeCommand } from '../command-line.js';

/** Flags of `export`. */
export interface ExportFlags extends StoreCommandFlags {
  readonly format?: string | undefined;
  readonly out?: string | undefined;
  /** The model a wire format's body names (default: the agent's, else its provider's default). */
  readonly model?: string | undefined;
}

/** What `export` declares of its flags, checked when it runs. */
export const exportFlags: z.ZodType<ExportFlags> = z.object({ ...storeFlagsShape, format: textFlag(), out: textFlag(), model: textFlag() });

/** `export <agent>`. */
export const declareExportCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'export', 'Write an agent\'s whole history: a provider body of what the model sees, or JSONL with every message and event.', 'sliding-context export <agent-id> --format anthropic --out request.json')
    .argument('<agent>', 'agent id')
    .option('--format <format>', `${inputFormatList('jsonl')} (default: jsonl, one neutral message a line, events included; import reads it back)`)
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--model <name>', `the model a provider body names (default: the agent's; for another provider's format, its default: ${defaultModelList('or', '')})`)
    .action(async (agent: string, options: unknown) => {
      const flags = parseCommandFlags(exportFlags, options, 'export');
      await (await import('./export-command.js')).runExportCommand(agent, flags, io);
    });
};
