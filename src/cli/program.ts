import { createRequire } from 'node:module';
import { Command, Option } from 'commander';
import { DEFAULT_MODEL, DEFAULT_MODELS, DEFAULT_PROVIDER } from '../tokens/default-target.js';
import { wireFormats } from '../providers/wire-format-names.js';
import type { CliIo } from './cli-io.js';
import { loadCliConfig } from './cli-config.js';
import { parseCommandFlags } from './command-flags.js';
import { applyCliSettings } from './cli-settings.js';
import { modelOverrideOptions, recordModelOverrideFlags } from './cli-model-overrides.js';
import { WINDOW_POLICY_NAMES } from '../window/window-policy.js';

// Each command's module is loaded when the command runs: a command pays only for what it uses.
const windowCommand = () => import('./commands/window-command.js');
const countCommand = () => import('./commands/count-command.js');
const storeCommands = () => import('./commands/store-commands.js');
const importCommand = () => import('./commands/import-command.js');

/** The version in package.json, found by the package's own name (the bundled CLI sits elsewhere than src/). */
function packageVersion(): string {
  return (createRequire(import.meta.url)('sliding-context/package.json') as { version: string }).version;
}

/** The options that choose the store, as every command that opens one takes them. */
const dataDirOption = () => new Option('--data-dir <dir>', 'PGlite store directory (default: $SLIDING_CONTEXT_DATA_DIR, else the data home)');
const databaseUrlOption = () => new Option('--database-url <url>', 'PostgreSQL server to use instead of PGlite (default: $DATABASE_URL)');

/** Each provider's default model, listed for help: `gpt-4o, claude-sonnet-4-6, or gemini-2.5-flash`. */
function defaultModelList(conjunction: string, comma = ','): string {
  const models = Object.values(DEFAULT_MODELS);
  return `${models.slice(0, -1).join(', ')}${comma} ${conjunction} ${models.at(-1) ?? ''}`;
}

const POLICY_HELP = `window policy: ${WINDOW_POLICY_NAMES.join(', ')} (default: cache-aware; settings from the config file)`;

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
      recordModelOverrideFlags(io, command);
    });

  program
    .command('window')
    .description('Plan the window of a conversation: which whole exchanges fit the budget.')
    .argument(
      '[file]',
      'JSON file: a message array or { system?, tools?, messages }; - or none for stdin',
    )
    .option(
      '--budget <tokens>',
      'token budget, or "model" for the model\'s window less output and a 10% buffer; 0 disables windowing (default: $SLIDING_CONTEXT_TOKENS, else 100000)',
    )
    .option('--pin-first', 'keep the first exchange (usually the task) in every window')
    .option('--policy <name>', POLICY_HELP)
    .option('--provider <name>', `provider the request is for (default: from the body's format, else ${DEFAULT_PROVIDER})`)
    .option('--model <name>', `model the request is for (default: the body's model, else ${DEFAULT_MODEL})`)
    .option('--format <format>', `input format: auto (default), ${[...wireFormats, 'claude-code', 'codex'].join(', ')}`)
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
      const { runAgentWindowCommand, runWindowCommand, windowFlags } = await windowCommand();
      const flags = parseCommandFlags(windowFlags, options, 'window');
      if (flags.agent === undefined) await runWindowCommand(file, flags, io);
      else await runAgentWindowCommand(flags.agent, flags, io);
    });

  program
    .command('demo')
    .description('Replay a bundled 160-exchange coding-agent session through a conversation on the embedded PGlite, and show the window slide.')
    .option('--budget <tokens>', 'token budget, or "model" (default: 16000, small so that the window slides)')
    .option('--provider <name>', `provider to count for (default: ${DEFAULT_PROVIDER})`)
    .option('--model <name>', `model to count for (default: the provider's: ${defaultModelList('or')})`)
    .option('--data-dir <dir>', 'keep the replayed agent in this PGlite directory (default: in memory, gone when the demo ends)')
    .option('--exchanges <count>', 'replay only the first N exchanges of the session, at most 160 (default: all 160)')
    .option('--json', 'print the totals and the summary as JSON')
    .addHelpText('after', '\nExamples:\n  sliding-context demo\n  sliding-context demo --provider anthropic --budget 30000 --data-dir ./demo-store')
    .action(async (options: unknown) => {
      const { demoFlags, runDemoCommand } = await import('./commands/demo-command.js');
      await runDemoCommand(parseCommandFlags(demoFlags, options, 'demo'), io);
    });

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
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .addHelpText('after', '\nExamples:\n  sliding-context chat --budget 20000                     (with OPENAI_API_KEY set)\n  sliding-context chat --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder\n  sliding-context chat --provider anthropic --allow-commands')
    .action(async (options: unknown) => {
      const { chatFlags, runChatCommand } = await import('./commands/chat-command.js');
      await runChatCommand(parseCommandFlags(chatFlags, options, 'chat'), io);
    });

  program
    .command('serve')
    .description('A proxy on loopback for OpenAI and Anthropic clients: every request is windowed over the store before it goes upstream.')
    .option('--port <port>', 'port to listen on (default: 8787; 0 picks a free one)')
    .option('--host <address>', 'address to bind (default: 127.0.0.1); any other requires --token')
    .option('--token <token>', 'a secret every request must carry in the x-sliding-context-token header')
    .option('--upstream-openai <url>', 'where OpenAI requests go (default: https://api.openai.com)')
    .option('--upstream-anthropic <url>', 'where Anthropic requests go (default: https://api.anthropic.com)')
    .option('--budget <tokens>', 'token budget of every conversation, or "model" for each model\'s window less output and a 10% buffer (default: $SLIDING_CONTEXT_TOKENS, else the agent\'s, else 100000)')
    .option('--policy <name>', POLICY_HELP)
    .addOption(dataDirOption())
    .addOption(databaseUrlOption())
    .addHelpText('after', '\nExamples:\n  sliding-context serve --budget 50000\n  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 my-agent          (in another terminal)\n  sliding-context serve --host 0.0.0.0 --token "$(openssl rand -hex 16)" --upstream-openai http://127.0.0.1:8080')
    .action(async (options: unknown) => {
      const { runServeCommand, serveFlags } = await import('./commands/serve-command.js');
      await runServeCommand(parseCommandFlags(serveFlags, options, 'serve'), io);
    });

  program
    .command('count')
    .description('Count the tokens of a request for a provider and model, segment by segment.')
    .argument('[file]', 'JSON file: a message array or { system?, tools?, messages }; - or none for stdin')
    .option('--provider <name>', `provider: openai (exact), anthropic or google (estimates), other (bytes/4); default: from the body, else ${DEFAULT_PROVIDER}`)
    .option('--model <name>', `model the request is for (default: the body's model, else ${DEFAULT_MODEL})`)
    .option('--format <format>', `input format: auto (default), ${[...wireFormats, 'claude-code', 'codex'].join(', ')}`)
    .option('--json', 'print the counts as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  sliding-context count examples/coding-agent-session.json --provider anthropic --model claude-sonnet-4-5\n  cat request.json | sliding-context count --json',
    )
    .action(async (file: string | undefined, options: unknown) => {
      const { countFlags, runCountCommand } = await countCommand();
      await runCountCommand(file, parseCommandFlags(countFlags, options, 'count'), io);
    });

  const storeCommand = (name: string, description: string, example: string) =>
    program
      .command(name)
      .description(description)
      .addOption(dataDirOption())
      .addOption(databaseUrlOption())
      .option('--json', 'print JSON')
      .addHelpText('after', `\nExample:\n  ${example}`);

  storeCommand('import', 'Store a conversation as a new agent, or append it to one: a provider body, a message array, or an agent transcript (Claude Code session, Codex rollout).', 'sliding-context import ~/.claude/projects/my-app/7f3c2a10.jsonl --json')
    .argument('<file>', 'JSON or JSONL file; - for stdin')
    .option('--format <format>', `input format: auto (default), ${[...wireFormats, 'claude-code', 'codex', 'jsonl'].join(', ')} (jsonl: an export)`)
    .option('--strict', 'import nothing if any transcript line is broken (default: report broken lines and import the rest)')
    .option('--agent <id>', 'append to this agent instead of creating one')
    .option('--provider <name>', 'provider to count for (default: from the body)')
    .option('--model <name>', 'model to count for (default: from the body)')
    .option('--name <name>', 'a name for the agent, shown by `agents` (with --agent: renames it)')
    .option('--sync', 'with --agent: the body is the agent\'s conversation grown by some turns; append only the messages it does not hold yet')
    .addHelpText('after', '  sliding-context import request-turn-12.json --agent <agent-id> --sync\n  sliding-context import ~/.codex/sessions/2026/11/21/rollout-2026-11-21T08-00-00-019a8f2e.jsonl --strict\n  sliding-context import anthropic-request.json --agent <agent-id>')
    .action(async (file: string, options: unknown) => {
      const { importFlags, runImportCommand } = await importCommand();
      await runImportCommand(file, parseCommandFlags(importFlags, options, 'import'), io);
    });

  storeCommand('export', 'Write an agent\'s whole history: a provider body of what the model sees, or JSONL with every message and event.', 'sliding-context export <agent-id> --format anthropic --out request.json')
    .argument('<agent>', 'agent id')
    .option('--format <format>', `${[...wireFormats, 'jsonl'].join(', ')} (default: jsonl, one neutral message a line, events included; import reads it back)`)
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--model <name>', `the model a provider body names (default: the agent's; for another provider's format, its default: ${defaultModelList('or', '')})`)
    .action(async (agent: string, options: unknown) => {
      const { exportFlags, runExportCommand } = await import('./commands/export-command.js');
      await runExportCommand(agent, parseCommandFlags(exportFlags, options, 'export'), io);
    });

  storeCommand('agents', 'List the stored agents with their messages, tokens and last activity.', 'sliding-context agents --json').action(async (options: unknown) => {
    const { runAgentsCommand, storeCommandFlags } = await storeCommands();
    await runAgentsCommand(parseCommandFlags(storeCommandFlags, options, 'agents'), io);
  });

  storeCommand('history', 'Show an agent\'s exchanges out of and in the window, with the context rule.', 'sliding-context history <agent-id> --budget 50000')
    .argument('<agent>', 'agent id')
    .option('--budget <tokens>', 'token budget, or "model" (default: the agent\'s)')
    .option('--policy <name>', POLICY_HELP)
    .option('--provider <name>', 'provider to count for (default: the agent\'s)')
    .option('--model <name>', 'model to count for (default: the agent\'s)')
    .option('--all', 'list every exchange back to the first, across clears and the history a fork inherits (default: from the clear before the latest one)')
    .option('--limit <n>', 'show only the first N rows (exchanges and events)')
    .option('--tail <n>', 'show only the last N rows (exchanges and events)')
    .addHelpText('after', '  sliding-context history <agent-id> --all --tail 20')
    .action(async (agent: string, options: unknown) => {
      const { historyFlags, runHistoryCommand } = await storeCommands();
      await runHistoryCommand(agent, parseCommandFlags(historyFlags, options, 'history'), io);
    });

  storeCommand('compact', 'Condense an agent\'s history into the pinned summary, shown before it replaces anything.', 'sliding-context compact <agent-id> --dry-run')
    .argument('<agent>', 'agent id')
    .option('--summarizer <name>', 'digest (no model) or llm (asks --summarizer-provider)', 'digest')
    .option('--summarizer-provider <name>', 'openai (also any OpenAI-compatible --base-url) or anthropic; key from OPENAI_API_KEY or ANTHROPIC_API_KEY', 'openai')
    .option('--summarizer-model <name>', 'the summarizer\'s own model (default: gpt-4o-mini, or claude-haiku-4-5)')
    .option('--base-url <url>', 'an OpenAI-compatible server for the summarizer (llama.cpp, vLLM, Ollama)')
    .option('--policy <name>', POLICY_HELP)
    .option('--dry-run', 'show the summary and change nothing')
    .option('--yes', 'apply without asking (on a terminal compact shows the summary and asks first)')
    .action(async (agent: string, options: unknown) => {
      const { compactFlags, runCompactCommand } = await import('./commands/compact-command.js');
      await runCompactCommand(agent, parseCommandFlags(compactFlags, options, 'compact'), io);
    });

  storeCommand('fork', 'Fork an agent: the child sees the history so far and goes on alone.', 'sliding-context fork <agent-id> --name try-postgres')
    .argument('<agent>', 'agent id')
    .option('--name <name>', 'a name for the child, shown by `agents`')
    .action(async (agent: string, options: unknown) => {
      const { forkFlags, runAgentEventCommand } = await storeCommands();
      await runAgentEventCommand('fork', agent, undefined, parseCommandFlags(forkFlags, options, 'fork'), io);
    });
  storeCommand('clear', 'Clear an agent\'s window (the history keeps everything).', 'sliding-context clear <agent-id>')
    .argument('<agent>', 'agent id')
    .action(async (agent: string, options: unknown) => {
      const { runAgentEventCommand, storeCommandFlags } = await storeCommands();
      await runAgentEventCommand('clear', agent, undefined, parseCommandFlags(storeCommandFlags, options, 'clear'), io);
    });
  storeCommand('marks', 'List the marks a rewind of an agent can reach: label, seq, when, and the exchange it comes before.', 'sliding-context marks <agent-id> --json')
    .argument('<agent>', 'agent id')
    .action(async (agent: string, options: unknown) => {
      const { marksFlags, runMarksCommand } = await import('./commands/marks-command.js');
      await runMarksCommand(agent, parseCommandFlags(marksFlags, options, 'marks'), io);
    });
  for (const [action, description] of [
    ['mark', 'Set a mark in an agent\'s history.'],
    ['rewind', 'Rewind an agent\'s window to a mark (the history keeps what followed).'],
  ] as const) {
    storeCommand(action, description, `sliding-context ${action} <agent-id> before-refactor`)
      .argument('<agent>', 'agent id')
      .argument('<label>', 'mark label')
      .action(async (agent: string, label: string, options: unknown) => {
        const { runAgentEventCommand, storeCommandFlags } = await storeCommands();
        await runAgentEventCommand(action, agent, label, parseCommandFlags(storeCommandFlags, options, action), io);
      });
  }

  // Every command that counts for a model takes the catalog's corrections.
  for (const command of program.commands) {
    if (command.options.some((option) => option.long === '--model')) for (const option of modelOverrideOptions()) command.addOption(option);
  }
  return program;
}
