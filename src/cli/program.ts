import { Command } from 'commander';
import { DEFAULT_MODEL, DEFAULT_PROVIDER } from '../tokens/token-counter.js';
import { wireFormats } from '../providers/wire-format.js';
import type { CliIo } from './cli-io.js';
import { type CountCommandOptions, runCountCommand } from './commands/count-command.js';
import { runWindowCommand, type WindowCommandOptions } from './commands/window-command.js';

/** Builds the `sliding-context` command line. Nothing here touches `process`. */
export function createProgram(io: CliIo): Command {
  const program = new Command('sliding-context')
    .description(
      'Keep a long-running LLM agent conversation inside its context window, losing nothing.',
    )
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('window')
    .description('Plan the window of a conversation: which whole exchanges fit the budget.')
    .argument(
      '[file]',
      'JSON file: a message array or { system?, tools?, messages }; - or none for stdin',
    )
    .option(
      '--budget <tokens>',
      'token budget; 0 disables windowing (default: $SLIDING_CONTEXT_TOKENS, else 100000)',
    )
    .option('--pin-first', 'keep the first exchange (usually the task) in every window')
    .option('--provider <name>', `provider the request is for (default: from the body's format, else ${DEFAULT_PROVIDER})`)
    .option('--model <name>', `model the request is for (default: the body's model, else ${DEFAULT_MODEL})`)
    .option('--format <format>', `input format: auto (default), ${wireFormats.join(', ')}`)
    .option('--repair', 'repair tool-call pairing (drop orphaned results, answer unanswered calls) and report each change')
    .option('--json', 'print the plan as JSON, with the messages and the request body to send')
    .option('--body', 'print only the windowed request body, in the input format, ready to send')
    .addHelpText(
      'after',
      '\nExamples:\n  sliding-context window examples/coding-agent-session.json --budget 24000\n  cat conversation.json | sliding-context window --json --pin-first\n  sliding-context window anthropic-request.json --budget 50000 --body > windowed.json',
    )
    .action((file: string | undefined, options: WindowCommandOptions) => runWindowCommand(file, options, io));

  program
    .command('count')
    .description('Count the tokens of a request for a provider and model, segment by segment.')
    .argument('[file]', 'JSON file: a message array or { system?, tools?, messages }; - or none for stdin')
    .option('--provider <name>', `provider: openai (exact), anthropic or google (estimates), other (bytes/4); default: from the body, else ${DEFAULT_PROVIDER}`)
    .option('--model <name>', `model the request is for (default: the body's model, else ${DEFAULT_MODEL})`)
    .option('--format <format>', `input format: auto (default), ${wireFormats.join(', ')}`)
    .option('--json', 'print the counts as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  sliding-context count examples/coding-agent-session.json --provider anthropic --model claude-sonnet-4-5\n  cat request.json | sliding-context count --json',
    )
    .action((file: string | undefined, options: CountCommandOptions) => runCountCommand(file, options, io));

  return program;
}
