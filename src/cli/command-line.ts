import { type Command, Option } from 'commander';
import { DEFAULT_MODELS } from '../tokens/default-target.js';
import { wireFormats } from '../providers/wire-format-names.js';
import { WINDOW_POLICY_NAMES } from '../window/window-policy.js';
import type { CliIo } from './cli-io.js';

/**
 * What each command's `*-command-line.ts` exports: it adds the command, its arguments and its
 * flags to the program. The command's run function is loaded only when the command runs.
 */
export type DeclareCommand = (program: Command, io: CliIo) => void;

/** `--data-dir`: the PGlite store directory. */
export const dataDirOption = () => new Option('--data-dir <dir>', 'PGlite store directory (default: $SLIDING_CONTEXT_DATA_DIR, else the data home)');
/** `--database-url`: a PostgreSQL server instead of PGlite. */
export const databaseUrlOption = () => new Option('--database-url <url>', 'PostgreSQL server to use instead of PGlite (default: $DATABASE_URL)');

/** Each provider's default model, listed for help: `gpt-4o, claude-sonnet-4-6, or gemini-2.5-flash`. */
export function defaultModelList(conjunction: string, comma = ','): string {
  const models = Object.values(DEFAULT_MODELS);
  return `${models.slice(0, -1).join(', ')}${comma} ${conjunction} ${models.at(-1) ?? ''}`;
}

/** The help of `--policy`. */
export const POLICY_HELP = `window policy: ${WINDOW_POLICY_NAMES.join(', ')} (default: cache-aware; settings from the config file)`;

/** The input formats a `--format` flag names, after `auto`: the wire formats and the `extra` ones. */
export const inputFormatList = (...extra: readonly string[]) => [...wireFormats, ...extra].join(', ');

/** A command that opens the store: `--data-dir`, `--database-url` and `--json`, with an example. */
export function storeCommand(program: Command, name: string, description: string, example: string): Command {
  return program
    .command(name)
    .description(description)
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .option('--json', 'print JSON')
    .addHelpText('after', `\nExample:\n  ${example}`);
}
