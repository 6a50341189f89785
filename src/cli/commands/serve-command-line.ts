import { z } from 'zod';
import { parseCommandFlags, storeFlagsShape, targetFlagsShape, textFlag } from '../command-flags.js';
import { databaseUrlOption, dataDirOption, type DeclareCommand, POLICY_HELP } from '../command-line.js';

/** Flags of `serve`. */
export interface ServeFlags {
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly token?: string | undefined;
  readonly upstreamOpenai?: string | undefined;
  readonly upstreamAnthropic?: string | undefined;
  /** Tokens or `model`: a flag's text, or the config file's value. */
  readonly budget?: string | number | undefined;
  /** A policy name, or a policy object from the config file. */
  readonly policy?: unknown;
  readonly dataDir?: string | undefined;
  readonly databaseUrl?: string | undefined;
  /** False with `--no-proxy`: the web view alone. */
  readonly proxy?: boolean | undefined;
}

/** What `serve` declares of its flags, checked when it runs. */
export const serveFlags: z.ZodType<ServeFlags> = z.object({
  port: textFlag(),
  host: textFlag(),
  token: textFlag(),
  upstreamOpenai: textFlag(),
  upstreamAnthropic: textFlag(),
  budget: targetFlagsShape.budget,
  policy: targetFlagsShape.policy,
  dataDir: storeFlagsShape.dataDir,
  databaseUrl: storeFlagsShape.databaseUrl,
  proxy: z.boolean().optional(),
});

/** `serve`. */
export const declareServeCommand: DeclareCommand = (program, io) => {
  program
    .command('serve')
    .description('A proxy on loopback for OpenAI and Anthropic clients: every request is windowed over the store before it goes upstream. The history\'s web view is at /.')
    .option('--port <port>', 'port to listen on (default: 8787; 0 picks a free one)')
    .option('--host <address>', 'address to bind (default: 127.0.0.1); any other requires --token')
    .option('--token <token>', 'a secret every request must carry in the x-sliding-context-token header')
    .option('--upstream-openai <url>', 'where OpenAI requests go (default: https://api.openai.com)')
    .option('--upstream-anthropic <url>', 'where Anthropic requests go (default: https://api.anthropic.com)')
    .option('--budget <tokens>', 'token budget of every conversation, or "model" for each model\'s window less output and a 10% buffer (default: $SLIDING_CONTEXT_TOKENS, else the agent\'s, else 100000)')
    .option('--policy <name>', POLICY_HELP)
    .option('--no-proxy', 'serve only the web view of the history, no proxy')
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .addHelpText('after', '\nExamples:\n  sliding-context serve --budget 50000\n  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 my-agent          (in another terminal)\n  sliding-context serve --host 0.0.0.0 --token "$(openssl rand -hex 16)" --upstream-openai http://127.0.0.1:8080')
    .action(async (options: unknown) => {
      const flags = parseCommandFlags(serveFlags, options, 'serve');
      await (await import('./serve-command.js')).runServeCommand(flags, io);
    });
};
