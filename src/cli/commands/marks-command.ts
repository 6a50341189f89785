import { reachableMarks } from '../../conversation/reachable-marks.js';
import type { CliIo } from '../cli-io.js';
import { withCliStore } from '../open-cli-store.js';
import { renderMarksList } from '../render/marks-list.js';
import type { StoreCommandFlags } from './store-commands.js';
import { storeFlagsShape } from '../command-flags.js';
import { z } from 'zod';

/** What `marks` declares of its flags, checked when it runs. */
export const marksFlags: z.ZodType<StoreCommandFlags> = z.object(storeFlagsShape);

/** `marks <agent>`: the labels a rewind can reach, with seq, time and exchange number; `--json` as a list. */
export async function runMarksCommand(agentId: string, flags: StoreCommandFlags, io: CliIo): Promise<void> {
  await withCliStore(io, flags, async (store) => {
    const marks = reachableMarks((await store.timeline(agentId)).entries);
    io.stdout.write(flags.json ? `${JSON.stringify({ agentId, marks }, null, 2)}\n` : renderMarksList(agentId, marks, new Date()));
  }, { create: false });
}
