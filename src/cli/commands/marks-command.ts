import { reachableMarks } from '../../conversation/reachable-marks.js';
import type { CliIo } from '../cli-io.js';
import { withCliStore } from '../open-cli-store.js';
import { renderMarksList } from '../render/marks-list.js';
import type { StoreCommandFlags } from '../command-flags.js';

/** `marks <agent>`: the labels a rewind can reach, with seq, time and exchange number; `--json` as a list. */
export async function runMarksCommand(agentId: string, flags: StoreCommandFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const marks = reachableMarks((await store.timeline(agentId)).entries);
    io.stdout.write(flags.json ? `${JSON.stringify({ agentId, marks }, null, 2)}\n` : renderMarksList(agentId, marks, new Date()));
  }, { create: false });
}
