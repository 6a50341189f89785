/**
 * One integration configuration measured in a process of its own:
 * `measure-one.ts <index> <turns>` prints its measurements as JSON on a line of their own after
 * `MEASURED ` (a framework may print its own logs on standard output).
 */
import { measureConfiguration } from '../integrations.bench.js';

const [index, turns] = process.argv.slice(2).map(Number);
const measured = await measureConfiguration(index ?? 0, turns ?? 200);
// A framework may leave a timer or a socket open: the process ends once the line is written.
process.stdout.write(`\nMEASURED ${JSON.stringify(measured)}\n`, () => process.exit(0));
