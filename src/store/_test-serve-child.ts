/**
 * A child process for the serving tests: serves a stand-in store (no database) on the socket
 * beside `<dataDir>`, prints `SERVING`, and when its stdin ends stops serving and prints
 * `STOPPED`. Nothing else keeps it running, as a holder whose database is idle.
 */
import type { HistoryStore } from './history-store.js';
import { serveStore } from './serve-store.js';

const [dataDir] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: _test-serve-child <dataDir>');
const standIn: Partial<HistoryStore> = { listAgents: () => Promise.resolve([]) };
const service = await serveStore(standIn as HistoryStore, dataDir);
if (!service) throw new Error(`${dataDir} cannot be served`);
await new Promise((resolve) => {
  process.stdin.once('end', resolve);
  process.stdin.resume();
  process.stdout.write('SERVING\n');
});
await service.stop();
process.stdout.write('STOPPED\n');
