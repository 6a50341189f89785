/**
 * A child process for the crash tests: appends to one agent, one message per commit, and prints
 * `ACK <seq>` after each commit returns. The parent kills it with SIGKILL at a random moment.
 */
import { HistoryStore } from './history-store.js';

const [location, agentId] = process.argv.slice(2);
if (!location || !agentId) throw new Error('usage: _test-append-child <dataDir|databaseUrl> <agentId>');
const store = await HistoryStore.open(location.startsWith('postgres') ? { databaseUrl: location } : { dataDir: location });
for (let index = 0; ; index++) {
  const { lastSeq } = await store.append(agentId, [{ role: 'user', content: `message ${index} ${'x'.repeat(index % 50)}` }]);
  process.stdout.write(`ACK ${lastSeq}\n`);
}
