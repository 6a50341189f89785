import { isAbsolute, relative, resolve } from 'node:path';
import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { CliIo } from '../cli-io.js';
import { cliStoreLocation, withCliStore } from '../open-cli-store.js';
import { formatNumber } from '../render/format-number.js';
import { exportAgentHistory, parseExportFormat } from './export-history.js';
import type { ExportFlags } from './export-command-line.js';

/**
 * `export <agent>`: the agent's history in a wire format or as JSONL, to stdout or `--out`. What
 * the format cannot hold (events, what a clear or rewind hid) is said on stderr, and in `--json`.
 */
export async function runExportCommand(agentId: string, flags: ExportFlags, io: CliIo): Promise<void> {
  const format = parseExportFormat(flags.format);
  if (flags.out !== undefined) refuseStoreFile(flags.out, cliStoreLocation(io, flags, { create: false }), io.cwd);
  const exported = await withCliStore(io, flags, (store) => exportAgentHistory(store, agentId, format, { model: flags.model }), { create: false });
  if (exported.body?.note !== undefined) io.stderr.write(`note: ${exported.body.note}\n`);
  const model = exported.body === undefined ? {} : { model: exported.body.model };
  const leftOut = Object.entries(exported.eventsLeftOut).map(([kind, count]) => `${formatNumber(count)} ${kind}`);
  const note = leftOut.length === 0 && exported.hiddenMessagesLeftOut === 0
    ? undefined
    : `${format} cannot represent events: left out ${[...leftOut, ...(exported.hiddenMessagesLeftOut > 0 ? [`${formatNumber(exported.hiddenMessagesLeftOut)} messages a clear or rewind hid`] : [])].join(', ')}; --format jsonl keeps them`;
  if (flags.out === undefined) {
    if (flags.json) {
      io.stdout.write(`${JSON.stringify({ agentId, format, ...model, messages: exported.messages, eventsLeftOut: exported.eventsLeftOut, hiddenMessagesLeftOut: exported.hiddenMessagesLeftOut, text: exported.text }, null, 2)}\n`);
    } else io.stdout.write(exported.text);
    if (note !== undefined) io.stderr.write(`note: ${note}\n`);
    return;
  }
  if (!io.writeText) throw new SlidingContextError('OUTPUT_UNWRITABLE', '--out: this program cannot write files here; leave --out out to write to stdout.');
  try {
    await io.writeText(flags.out, exported.text);
  } catch (error) {
    throw new SlidingContextError('OUTPUT_UNWRITABLE', `--out: cannot write ${flags.out}: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
  }
  const { messages, eventsLeftOut, hiddenMessagesLeftOut } = exported;
  const summary = { agentId, format, ...model, out: flags.out, messages, eventsLeftOut, hiddenMessagesLeftOut };
  if (flags.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else io.stderr.write(`exported ${formatNumber(exported.messages)} messages of ${agentId} as ${format} to ${flags.out}${note === undefined ? '' : `\nnote: ${note}`}\n`);
}

/** True when `path` is `base` or lies inside it. */
function isWithin(path: string, base: string): boolean {
  const step = relative(base, path);
  return step === '' || (!step.startsWith('..') && !isAbsolute(step));
}

/**
 * Refuses an `--out` that is the PGlite store's own: its directory or a file in it, its lock, its
 * socket or its saved views (written over, the store would not open again).
 * @throws SlidingContextError `OUTPUT_UNWRITABLE`
 */
function refuseStoreFile(out: string, location: ReturnType<typeof cliStoreLocation>, cwd: string | undefined): void {
  if (!('dataDir' in location)) return;
  const base = cwd ?? process.cwd();
  const dataDir = resolve(base, location.dataDir);
  const target = resolve(base, out);
  if ([dataDir, `${dataDir}.views`].some((owned) => isWithin(target, owned)) || [`${dataDir}.lock`, `${dataDir}.sock`].includes(target)) {
    throw new SlidingContextError('OUTPUT_UNWRITABLE', `--out: ${out} is part of the store ${location.dataDir}; writing there would break it. Give a path outside it.`);
  }
}
