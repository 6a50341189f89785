import { z } from 'zod';
import { parseCommandFlags, type StoreCommandFlags, storeFlagsShape, switchFlag, targetFlagsShape, textFlag } from '../command-flags.js';
import { databaseUrlOption, dataDirOption, type DeclareCommand, defaultModelList } from '../command-line.js';
import { DEFAULT_PROVIDER } from '../../tokens/default-target.js';

/** Flags of `chat`. */
export interface ChatFlags extends StoreCommandFlags {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly agent?: string | undefined;
  readonly new?: boolean | undefined;
  /** Tokens or `model`: a flag's text, or the config file's value. */
  readonly budget?: string | number | undefined;
  readonly allowCommands?: boolean | undefined;
  /** A name for the agent, shown by `agents`. */
  readonly name?: string | undefined;
  /** The most of the budget a summary may take: a flag's or env var's text, or the config file's number. */
  readonly maxSummaryShare?: string | number | undefined;
}

/** What `chat` declares of its flags, checked when it runs. */
export const chatFlags: z.ZodType<ChatFlags> = z.object({
  ...storeFlagsShape,
  provider: textFlag(),
  model: textFlag(),
  baseUrl: textFlag(),
  agent: textFlag(),
  new: switchFlag(),
  budget: targetFlagsShape.budget,
  allowCommands: switchFlag(),
  name: textFlag(),
  maxSummaryShare: z.union([z.string(), z.number()]).optional(),
});

/** `chat`. */
export const declareChatCommand: DeclareCommand = (program, io) => {
  program
    .command('chat')
    .description('A terminal coding agent on sliding-context: streaming, read-only tools, the context rule in the scrollback, slash commands.')
    .option('--provider <name>', 'openai, anthropic or google (keys: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY)', DEFAULT_PROVIDER)
    .option('--model <name>', `model (default: ${defaultModelList('or')})`)
    .option('--base-url <url>', 'an OpenAI-compatible server instead (llama.cpp, vLLM, Ollama): no key needed')
    .option('--agent <id>', 'resume this agent (default: the last one chatted with in this directory)')
    .option('--new', 'start a new agent even if this directory has one')
    .option('--budget <tokens>', 'token budget, or "model" (default: the agent\'s, else 100000)')
    .option('--allow-commands', 'offer the run_command tool; each command asks for confirmation')
    .option('--name <name>', 'a name for the agent, shown by `agents`')
    .option('--max-summary-share <fraction>', 'the most of the budget the summary may take (default 0.1, at most 0.5)')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .addHelpText('after', '\nExamples:\n  sliding-context chat --budget 20000                     (with OPENAI_API_KEY set)\n  sliding-context chat --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder\n  sliding-context chat --provider anthropic --allow-commands')
    .action(async (options: unknown) => {
      const flags = parseCommandFlags(chatFlags, options, 'chat');
      await (await import('./chat-command.js')).runChatCommand(flags, io);
    });
};
