import { SlidingContextError } from '../../errors/sliding-context-error.js';
import type { CliIo } from '../cli-io.js';
import { withCliStore } from '../open-cli-store.js';
import { formatNumber } from '../render/format-number.js';
import { exportAgentHistory, parseExportFormat } from './export-history.js';
import type { ExportFlags } from './export-command-line.js';

/**
 * `export <agent>`: the agent's history in a wire format or as JSONL, to stdout or `--out`. What
 * the format cannot hold (events, what a clear or rewind hid) is said on stderr, and in `--json`.
 */
export async function runExportCommand(agentId: string, flags: ExportFlags, io: CliIo): Promise<void> {
  const format = parseExportFormat(flags.format);
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
