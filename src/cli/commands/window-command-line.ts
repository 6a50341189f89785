import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, switchFlag, type TargetFlags, targetFlagsShape, textFlag } from '../command-flags.js';
import { databaseUrlOption, dataDirOption, type DeclareCommand, inputFormatList, POLICY_HELP } from '../command-line.js';
import { DEFAULT_MODELS_TEXT, DEFAULT_PROVIDER } from '../../tokens/default-target.js';

/** Flags of `sliding-context window`. */
export interface WindowCommandOptions extends TargetFlags {
  readonly pinFirst?: boolean | undefined;
  readonly format?: string | undefined;
  readonly repair?: boolean | undefined;
  readonly json?: boolean | undefined;
  readonly body?: boolean | undefined;
}

/** What `window` declares of its flags, checked when it runs. */
export const windowFlags: z.ZodType<WindowCommandOptions & StoreCommandFlags & { readonly agent?: string | undefined }> = z.object({
  ...storeFlagsShape,
  ...targetFlagsShape,
  pinFirst: switchFlag(),
  format: textFlag(),
  repair: switchFlag(),
  body: switchFlag(),
  agent: textFlag(),
});

/** `window [file]`, or `window --agent <id>`. */
export const declareWindowCommand: DeclareCommand = (program, io) => {
  program
    .command('window')
    .description('Plan the window of a conversation: which whole exchanges fit the budget.')
    .argument('[file]', 'JSON file: a message array or { system?, tools?, messages }; - or none for stdin')
    .option(
      '--budget <tokens>',
      'token budget, or "model" for the model\'s window less output and a 10% buffer; 0 disables windowing (default: $SLIDING_CONTEXT_TOKENS, else 100000)',
    )
    .option('--pin-first', 'keep the first exchange (usually the task) in every window')
    .option('--policy <name>', POLICY_HELP)
    .option('--provider <name>', `provider the request is for (default: from the body's format, else ${DEFAULT_PROVIDER})`)
    .option('--model <name>', `model the request is for (default: the body's model, else the provider's default: ${DEFAULT_MODELS_TEXT})`)
    .option('--format <format>', `input format: auto (default), ${inputFormatList('claude-code', 'codex')}`)
    .option('--repair', 'repair tool-call pairing (drop orphaned results, answer unanswered calls) and report each change')
    .option('--json', 'print the plan as JSON, with the messages and the request body to send')
    .option('--body', 'print only the windowed request body, in the input format, ready to send')
    .option('--agent <id>', 'window a stored agent instead of a file')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .addHelpText(
      'after',
      '\nExamples:\n  sliding-context window examples/coding-agent-session.json --budget 24000\n  cat conversation.json | sliding-context window --json --pin-first\n  sliding-context window anthropic-request.json --budget 50000 --body > windowed.json',
    )
    .action(async (file: string | undefined, options: unknown) => {
      const flags = parseCommandFlags(windowFlags, options, 'window');
      const { runAgentWindowCommand, runWindowCommand } = await import('./window-command.js');
      if (flags.agent === undefined) await runWindowCommand(file, flags, io);
      else await runAgentWindowCommand(flags.agent, flags, io);
    });
};
