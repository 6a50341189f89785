import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../store/history-store.js';
import { checkSingleShardRouting, readSqlLog } from '../testing/citus-routing.js';
import { createServerDatabase } from '../testing/server-database.js';
import { runProxyLoad, startInstantUpstream, syntheticHistory } from './_test-proxy-load.js';
import { startProxy } from './start-proxy.js';

const serverUrl = process.env.DATABASE_URL;
const directory = mkdtempSync(join(tmpdir(), 'sliding-context-proxy-sql-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe.skipIf(!serverUrl)('the proxy under load, on a PostgreSQL server', () => {
  it('issues only statements that Citus routes to one shard (or the known fan-outs)', { timeout: 120_000 }, async () => {
    const file = join(directory, 'proxy.sql.jsonl');
    const database = await createServerDatabase(serverUrl ?? '', 'proxy_sql');
    process.env.SLIDING_CONTEXT_SQL_LOG = file;
    let store: HistoryStore;
    try {
      store = await HistoryStore.open({ databaseUrl: database.url });
    } finally {
      delete process.env.SLIDING_CONTEXT_SQL_LOG;
    }
    const upstream = await startInstantUpstream();
    const proxy = await startProxy({ store, port: 0, upstreamOpenAi: upstream.url, budgetTokens: 4_000 });
    try {
      const histories = [1, 2, 3].map((seed) => syntheticHistory(seed, 12_000));
      const { samples } = await runProxyLoad(proxy.url, histories, 3);
      expect(new Set(samples.map((sample) => sample.agentId)).size).toBe(3);
      // A request that diverges from the middle of one of them: a fork.
      const diverged = [...(histories[0] ?? []).slice(0, 3), { role: 'user', content: 'start over from here' }];
      const fork = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: diverged }),
      });
      expect(fork.status).toBe(200);
      // A pinned agent, by name.
      const pinned = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-sliding-context-agent': 'pinned' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(pinned.status).toBe(200);
      await proxy.settled();
    } finally {
      await proxy.close();
      await upstream.close();
      await store.close();
      await database.drop();
    }
    const statements = readSqlLog(file);
    expect(statements.length).toBeGreaterThan(50);
    const routed = await checkSingleShardRouting(statements);
    expect(routed.filter((statement) => statement.unexpected).map((statement) => [statement.sql, statement.reasons])).toEqual([]);
    // Placing and storing the turns reached the store: appends and reads, each on one shard.
    expect(routed.some((statement) => statement.route === 'single-shard' && /insert into "messages"/i.test(statement.sql))).toBe(true);
  });
});
