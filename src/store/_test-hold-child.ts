/**
 * A child process for the serving tests: holds a PGlite directory, prints `OPEN`, and with an
 * agent id appends to it in a loop, printing `ACK <seq>` after each commit. When its stdin ends
 * it finishes the append under way, closes the store and prints `CLOSED`.
 */
import { HistoryStore } from './history-store.js';

const [dataDir, agentId] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: _test-hold-child <dataDir> [agentId]');
const store = await HistoryStore.open({ dataDir });
const state = { closing: false };
let appending = Promise.resolve();
process.stdin.on('end', () => {
  state.closing = true;
  void appending.then(async () => {
    await store.close();
    process.stdout.write('CLOSED\n');
  });
});
process.stdin.resume();
process.stdout.write('OPEN\n');
if (agentId) {
  appending = (async () => {
    for (let index = 0; !state.closing; index++) {
      const { lastSeq } = await store.append(agentId, [{ role: 'user', content: `held ${index}` }]);
      process.stdout.write(`ACK ${lastSeq}\n`);
      // As a chat waits on its provider between appends: PGlite alone never yields to the event loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
}
