/**
 * A child process that writes to a store another process holds (or a server): with `all`, one
 * write of each kind to a new agent, printing the ids written as JSON; with `append <agent>
 * <text>`, one user message.
 */
import { openStoreOrConnect } from './open-store-or-connect.js';

const [location, command, agentId, text] = process.argv.slice(2);
if (!location || (command !== 'all' && command !== 'append')) throw new Error('usage: _test-write-child <dataDir|databaseUrl> all|append <agentId> <text>');
const store = await openStoreOrConnect(location.startsWith('postgres') ? { databaseUrl: location } : { dataDir: location });
try {
  if (command === 'append') {
    await store.append(agentId ?? '', [{ role: 'user', content: text ?? '' }]);
  } else {
    const agent = await store.createAgent({}, { name: 'noted' });
    const { firstSeq } = await store.append(agent, [{ role: 'user', content: 'hello' }]);
    const child = await store.fork(agent);
    await store.recordRanges(agent, [{ kind: 'evicted', first: { agentId: agent, seq: firstSeq }, last: { agentId: agent, seq: firstSeq } }]);
    await store.renameAgent(agent, 'renamed');
    process.stdout.write(`${JSON.stringify([agent, agent, child, agent, agent])}\n`);
  }
} finally {
  await store.close();
}
