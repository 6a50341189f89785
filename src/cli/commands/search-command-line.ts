import { z } from 'zod';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape } from '../command-flags.js';
import { type DeclareCommand, storeCommand } from '../command-line.js';

/** What `search` declares of its flags, checked when it runs. */
export const searchFlags: z.ZodType<StoreCommandFlags> = z.object(storeFlagsShape);

/** `search <agent> <query>`. */
export const declareSearchCommand: DeclareCommand = (program, io) => {
  storeCommand(program, 'search', 'Search what an agent sees of its history, evicted exchanges included: the matching messages, best first, with an excerpt.', 'sliding-context search <agent-id> dueDate migration')
    .argument('<agent>', 'agent id')
    .argument('<query...>', 'words to find; "a phrase" in quotes, or, -word to exclude')
    .addHelpText('after', '  sliding-context search <agent-id> \'"read_file" -test\' --json')
    // A word to exclude (`-test`) is a word of the query, not an option: options take two dashes.
    .allowUnknownOption()
    .action(async (agent: string, query: string[], options: unknown) => {
      const misspelt = [agent, ...query].find((word) => word.startsWith('--'));
      if (misspelt !== undefined) {
        throw new SlidingContextError('UNKNOWN_OPTION', `unknown option '${misspelt}'; run with --help for usage (a word to exclude takes one dash: -word).`);
      }
      const flags = parseCommandFlags(searchFlags, options, 'search');
      await (await import('./search-command.js')).runSearchCommand(agent, query.join(' '), flags, io);
    });
};
