import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, switchFlag, type TargetFlags, targetFlagsShape, textFlag } from '../command-flags.js';
import { type DeclareCommand, inputFormatList, storeCommand } from '../command-line.js';

/** Flags of `import`. */
export interface ImportFlags extends StoreCommandFlags, TargetFlags {
  readonly format?: string | undefined;
  readonly agent?: string | undefined;
  readonly strict?: boolean | undefined;
  /** With `agent`: append only the messages of the body the agent does not hold yet. */
  readonly sync?: boolean | undefined;
  /** A name for the agent, shown by `agents`. */
  readonly name?: string | undefined;
}

/** What `import` declares of its flags, checked when it runs. */
export const importFlags: z.ZodType<ImportFlags> = z.object({
  ...storeFlagsShape,
  ...targetFlagsShape,
  format: textFlag(),
  agent: textFlag(),
  strict: switchFlag(),
  sync: switchFlag(),
  name: textFlag(),
});

/** `import <file>`. */
export const declareImportCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'import', 'Store a conversation as a new agent, or append it to one: a provider body, a message array, or an agent transcript (Claude Code session, Codex rollout).', 'sliding-context import ~/.claude/projects/my-app/7f3c2a10.jsonl --json')
    .argument('<file>', 'JSON or JSONL file; - for stdin')
    .option('--format <format>', `input format: auto (default), ${inputFormatList('claude-code', 'codex', 'jsonl')} (jsonl: an export)`)
    .option('--strict', 'import nothing if any transcript line is broken (default: report broken lines and import the rest)')
    .option('--agent <id>', 'append to this agent instead of creating one')
    .option('--provider <name>', 'provider to count for (default: from the body)')
    .option('--model <name>', 'model to count for (default: from the body)')
    .option('--name <name>', 'a name for the agent, shown by `agents` (with --agent: renames it)')
    .option('--sync', 'with --agent: the body is the agent\'s conversation grown by some turns; append only the messages it does not hold yet')
    .addHelpText('after', '  sliding-context import request-turn-12.json --agent <agent-id> --sync\n  sliding-context import ~/.codex/sessions/2026/11/21/rollout-2026-11-21T08-00-00-019a8f2e.jsonl --strict\n  sliding-context import anthropic-request.json --agent <agent-id>')
    .action(async (file: string, options: unknown) => {
      const flags = parseCommandFlags(importFlags, options, 'import');
      await (await import('./import-command.js')).runImportCommand(file, flags, io);
    });
};
