import { createRequire } from 'node:module';
import { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { loadCliConfig } from './cli-config.js';
import { applyCliSettings } from './cli-settings.js';
import { refuseEmptyStoreFlags } from './open-cli-store.js';
import { modelOverrideOptions, recordModelOverrideFlags } from './cli-model-overrides.js';
import type { DeclareCommand } from './command-line.js';
import { declareWindowCommand } from './commands/window-command-line.js';
import { declareDemoCommand } from './commands/demo-command-line.js';
import { declareChatCommand } from './commands/chat-command-line.js';
import { declareServeCommand } from './commands/serve-command-line.js';
import { declareCountCommand } from './commands/count-command-line.js';
import { declareImportCommand } from './commands/import-command-line.js';
import { declareExportCommand } from './commands/export-command-line.js';
import { declareCompactCommand } from './commands/compact-command-line.js';
import { declarePinCommands } from './commands/pin-command-line.js';
import { declareUncompactCommand } from './commands/uncompact-command-line.js';
import { declareSearchCommand } from './commands/search-command-line.js';
import {
  declareAgentsCommand,
  declareClearCommand,
  declareForkCommand,
  declareHistoryCommand,
  declareMarkAndRewindCommands,
  declareMarksCommand,
} from './commands/store-command-lines.js';

/**
 * The commands in the order help lists them. Each declares its own flags next to its run
 * function (`commands/*-command-line.ts`); the run function is loaded when the command runs.
 */
const COMMANDS: readonly DeclareCommand[] = [
  declareWindowCommand,
  declareDemoCommand,
  declareChatCommand,
  declareServeCommand,
  declareCountCommand,
  declareImportCommand,
  declareExportCommand,
  declareAgentsCommand,
  declareHistoryCommand,
  declareSearchCommand,
  declareCompactCommand,
  declareUncompactCommand,
  declareForkCommand,
  declareClearCommand,
  declareMarksCommand,
  declareMarkAndRewindCommands,
  declarePinCommands,
];

/** The version in package.json, found by the package's own name (the bundled CLI sits elsewhere than src/). */
function packageVersion(): string {
  return (createRequire(import.meta.url)('sliding-context/package.json') as { version: string }).version;
}

/** Builds the `sliding-context` command line. Nothing here touches `process`. */
export function createProgram(io: CliIo): Command {
  const program = new Command('sliding-context')
    .description(
      'Keep a long-running LLM agent conversation inside its context window, losing nothing.',
    )
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // A usage error is printed by the entry point as one `error[CODE]: …` line (see usageError).
      outputError: () => undefined,
    })
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    // Flags win over env vars, which win over sliding-context.config.json (or package.json "slidingContext").
    .hook('preAction', async (_, command) => {
      applyCliSettings(command, await loadCliConfig(io), io.env);
      // Every command, not only those that open a store through `cliStoreLocation` (`demo`, `window`).
      refuseEmptyStoreFlags(command.opts());
      recordModelOverrideFlags(io, command);
    });

  for (const declare of COMMANDS) declare(program, io);

  // Every command that counts for a model takes the catalog's corrections.
  for (const command of program.commands) {
    if (command.options.some((option) => option.long === '--model')) for (const option of modelOverrideOptions()) command.addOption(option);
  }
  return program;
}
