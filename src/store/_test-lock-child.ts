/**
 * A child process for the lock race tests. It waits for `go <round> <startAtMs>` lines on stdin,
 * and at that moment races the others for the store's lock:
 * - `lock`: takes the lock alone, holds it a few milliseconds, releases it;
 * - `append`: opens the store, appends one message to `agentId` and prints `ACK <content>`;
 * - `churn`: takes and releases the lock as fast as it can, from now until `startAtMs`.
 * Every holder writes `enter`/`leave` lines to the shared log; each round ends with
 * `done <round> held|refused <message>`, or `error <code> <message>` for anything unforeseen.
 */
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isSlidingContextError } from '../errors/sliding-context-error.js';
import { lockDirectory } from './directory-lock.js';

const [mode, dataDir = '', log = '', agentId = ''] = process.argv.slice(2);
if ((mode !== 'lock' && mode !== 'append' && mode !== 'churn') || !dataDir || !log) {
  throw new Error('usage: _test-lock-child lock|append|churn <dataDir> <log> [agentId]');
}

const pause = (milliseconds: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, milliseconds));
const say = (line: string) => process.stdout.write(`${line}\n`);
const enter = (round: string) => {
  appendFileSync(log, `enter ${round} ${process.pid}\n`);
};
const leave = (round: string) => {
  appendFileSync(log, `leave ${round} ${process.pid}\n`);
};

// Loaded before `ready`, so that the children start the race together.
const historyStore = mode === 'append' ? await import('./history-store.js') : undefined;

async function race(round: string): Promise<string> {
  if (mode === 'lock') {
    const release = lockDirectory(dataDir);
    enter(round);
    pause(15);
    leave(round);
    release();
    return 'held';
  }
  if (!historyStore) throw new Error('the store code is loaded in append mode only');
  const store = await historyStore.HistoryStore.open({ dataDir });
  enter(round);
  try {
    const content = `round ${round} process ${process.pid}`;
    await store.append(agentId, [{ role: 'user', content }]);
    say(`ACK ${content}`);
    leave(round);
  } finally {
    await store.close();
  }
  return 'held';
}

function churn(until: number): void {
  while (Date.now() < until) {
    try {
      lockDirectory(dataDir)();
    } catch (error) {
      if (!isSlidingContextError(error, 'STORE_LOCKED')) throw error;
    }
  }
}

say('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, round = '', startAt = '0'] = line.split(' ');
  if (command !== 'go') continue;
  try {
    if (mode === 'churn') {
      churn(Number(startAt));
      say(`done ${round} churned`);
      continue;
    }
    pause(Number(startAt) - Date.now());
    say(`done ${round} ${await race(round)}`);
  } catch (error) {
    if (isSlidingContextError(error, 'STORE_LOCKED')) say(`done ${round} refused ${error.message}`);
    else say(`error ${typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : ''} ${error instanceof Error ? error.message : String(error)}`);
  }
}
