/**
 * One integration configuration measured in a process of its own:
 * `measure-one.ts <index> <turns>` prints its measurements as JSON on a line of their own after
 * `MEASURED ` (a framework may print its own logs on standard output).
 */
import { measureConfiguration } from '../integrations.bench.js';

const [index, turns] = process.argv.slice(2).map(Number);
if (!Number.isInteger(index) || !Number.isInteger(turns)) throw new RangeError('usage: measure-one.ts <configuration index> <turns>');
const measured = await measureConfiguration(index as number, turns as number);
// A framework may leave a timer or a socket open: the process ends once the line is written.
process.stdout.write(`\nMEASURED ${JSON.stringify(measured)}\n`, () => process.exit(0));
