/**
 * The agent command lines the proxy is tested with, `codex` (@openai/codex) and `claude`
 * (@anthropic-ai/claude-code), installed on demand in agent-clis/ at the package's root: a package of its own,
 * about 800 MB, that the project's own install never pulls.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installLockedPackages } from './install-locked-packages.js';

/** Where the installed command lines are. */
export interface AgentCliBinaries {
  readonly codex: string;
  readonly claude: string;
}

const agentClisDirectory = fileURLToPath(new URL('../../agent-clis/', import.meta.url));

/**
 * Claude Code's `bin/claude.exe` is a placeholder until its install script copies the native binary of
 * the platform over it; npm can skip install scripts, so the platform package's binary is taken when
 * it is there.
 */
function claudeBinary(modules: string): string {
  const binary = process.platform === 'win32' ? 'claude.exe' : 'claude';
  for (const libc of ['', '-musl']) {
    const native = join(modules, '@anthropic-ai', `claude-code-${process.platform}-${process.arch}${libc}`, binary);
    if (existsSync(native)) return native;
  }
  return join(modules, '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
}

/** Installs the command lines when they are missing or stale (`npm ci`, so the registry must be reachable) and says where they are. */
export function installAgentClis(): AgentCliBinaries {
  installLockedPackages(agentClisDirectory, 'the agent command lines');
  const modules = join(agentClisDirectory, 'node_modules');
  return { codex: join(modules, '@openai', 'codex', 'bin', 'codex.js'), claude: claudeBinary(modules) };
}
