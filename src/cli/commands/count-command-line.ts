import { z } from 'zod';
import { parseCommandFlags, switchFlag, textFlag } from '../command-flags.js';
import { type DeclareCommand, inputFormatList } from '../command-line.js';
import { DEFAULT_MODELS_TEXT, DEFAULT_PROVIDER } from '../../tokens/default-target.js';

/** Flags of `sliding-context count`. */
export interface CountCommandOptions {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly format?: string | undefined;
  readonly json?: boolean | undefined;
}

/** What `count` declares of its flags, checked when it runs. */
export const countFlags: z.ZodType<CountCommandOptions> = z.object({ provider: textFlag(), model: textFlag(), format: textFlag(), json: switchFlag() });

/** `count [file]`. */
export const declareCountCommand: DeclareCommand = (program, io) => {
  program
    .command('count')
    .description('Count the tokens of a request for a provider and model, segment by segment.')
    .argument('[file]', 'JSON file: a message array or { system?, tools?, messages }; - or none for stdin')
    .option('--provider <name>', `provider: openai (exact), anthropic or google (estimates), other (bytes/4); default: from the body, else ${DEFAULT_PROVIDER}`)
    .option('--model <name>', `model the request is for (default: the body's model, else the provider's default: ${DEFAULT_MODELS_TEXT})`)
    .option('--format <format>', `input format: auto (default), ${inputFormatList('claude-code', 'codex')}`)
    .option('--json', 'print the counts as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  sliding-context count examples/coding-agent-session.json --provider anthropic --model claude-sonnet-4-5\n  cat request.json | sliding-context count --json',
    )
    .action(async (file: string | undefined, options: unknown) => {
      const flags = parseCommandFlags(countFlags, options, 'count');
      await (await import('./count-command.js')).runCountCommand(file, flags, io);
    });
};
