/**
 * `npm run bench [-- --quick]`: every benchmark, printed as markdown tables.
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { runColdStartBenchmarks } from './cold-start.bench.js';
import { runConversionBenchmarks } from './conversion.bench.js';
import { runCountingBenchmarks } from './counting.bench.js';
import { runDigestBenchmarks } from './digest.bench.js';
import { runImportBenchmarks } from './import.bench.js';
import { runIntegrationBenchmarks } from './integrations.bench.js';
import { runLockRaceBenchmarks } from './lock-race.bench.js';
import { runMemoryBenchmarks } from './memory.bench.js';
import { runPrefixBenchmarks } from './prefix.bench.js';
import { runProxyBenchmarks } from './proxy.bench.js';
import { runStoreBenchmarks } from './store.bench.js';
import { runWindowCacheBenchmarks } from './window-cache.bench.js';
import { runWindowStepBenchmarks } from './window-steps.bench.js';
import { runWindowUpkeepBenchmarks } from './window-upkeep.bench.js';
import { runWebBenchmarks } from './web.bench.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, turns: { type: 'string' } } });
const quick = values.quick;
/** `--turns N`: the integration session's length (default 200). */
const turns = values.turns === undefined ? undefined : Number(values.turns);
if (turns !== undefined && !(Number.isInteger(turns) && turns > 0)) throw new RangeError(`--turns takes a whole number of turns, not ${values.turns ?? ''}`);
/** `--only counting|conversion|store|cold|lock|upkeep|steps|memory|import|cache|integrations|digest|proxy|prefix|web`: one group of benchmarks. */
const runs = (group: string) => values.only === undefined || values.only === group;
const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
console.log(`# sliding-context benchmarks${quick ? ' (quick)' : ''}\n\nMachine: ${machine}\n`);
if (runs('import')) for (const section of await runImportBenchmarks()) console.log(`${section}\n`);
if (runs('digest')) for (const section of await runDigestBenchmarks()) console.log(`${section}\n`);
if (runs('counting')) for (const section of await runCountingBenchmarks(quick)) console.log(`${section}\n`);
if (runs('conversion')) for (const section of runConversionBenchmarks(quick)) console.log(`${section}\n`);
if (runs('store')) for (const section of await runStoreBenchmarks(quick)) console.log(`${section}\n`);
if (runs('cold')) for (const section of await runColdStartBenchmarks(quick)) console.log(`${section}\n`);
if (runs('cache')) for (const section of await runWindowCacheBenchmarks(quick)) console.log(`${section}\n`);
if (runs('integrations')) for (const section of await runIntegrationBenchmarks(quick, turns)) console.log(`${section}\n`);
if (runs('proxy')) for (const section of await runProxyBenchmarks(quick)) console.log(`${section}\n`);
if (runs('prefix')) for (const section of await runPrefixBenchmarks(quick)) console.log(`${section}\n`);
if (runs('web')) for (const section of await runWebBenchmarks(quick)) console.log(`${section}\n`);
if (runs('lock')) for (const section of await runLockRaceBenchmarks(quick)) console.log(`${section}\n`);
// Last but one: the upkeep leaves a large heap behind it, which would weigh on timings after it.
if (runs('upkeep')) for (const section of await runWindowUpkeepBenchmarks(quick)) console.log(`${section}\n`);
if (runs('steps')) for (const section of await runWindowStepBenchmarks(quick)) console.log(`${section}\n`);
if (runs('memory')) for (const section of runMemoryBenchmarks(quick)) console.log(`${section}\n`);
