/**
 * Drives the racing children of `_test-lock-child.ts` for the lock tests and the lock benchmark:
 * starts them, starts each round in all of them at one moment, and reads the holders' log.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The pid of a process that has exited: what a lock left by a crash names. */
export function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

/** A lock left by a crashed holder: the bare pid older versions wrote, or today's JSON. */
export function writeStaleLock(dataDir: string, pid: number, round: number): void {
  const content = round % 2 === 0 ? String(pid) : JSON.stringify({ pid, command: 'sliding-context chat', nonce: `crashed-${round}` });
  writeFileSync(`${dataDir}.lock`, content, { mode: 0o600 });
}

/** A racing child, with the lines it has printed. */
export interface Racer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
}

async function waitUntil(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the children did not answer within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts `count` children with these arguments and waits until each is ready. */
export async function startRacers(count: number, args: readonly string[]): Promise<Racer[]> {
  const racers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/store/_test-lock-child.ts', ...args], { cwd: root });
    const racer: Racer = { child, lines: [] };
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) racer.lines.push(line);
    });
    child.stderr.on('data', (chunk: Buffer) => racer.lines.push(`stderr ${chunk.toString('utf8')}`));
    return racer;
  });
  await waitUntil(() => racers.every((racer) => racer.lines.includes('ready')));
  return racers;
}

/** Starts a round in every racer at the same moment; resolves with each racer's answer. */
export async function raceRound(racers: readonly Racer[], round: number, startInMs = 100): Promise<string[]> {
  const startAt = Date.now() + startInMs;
  for (const racer of racers) racer.child.stdin.write(`go ${round} ${startAt}\n`);
  const answer = (racer: Racer) => racer.lines.find((line) => line.startsWith(`done ${round} `) || line.startsWith('error') || line.startsWith('stderr'));
  await waitUntil(() => racers.every((racer) => answer(racer) !== undefined));
  return racers.map((racer) => answer(racer) ?? '');
}

export async function stopRacers(racers: readonly Racer[]): Promise<void> {
  await Promise.all(racers.map((racer) => {
    racer.child.stdin.end();
    return new Promise((resolve) => racer.child.once('exit', resolve));
  }));
}

/** What the acknowledging racers acknowledged (`ACK <content>` lines). */
export function acknowledgedAppends(racers: readonly Racer[]): string[] {
  return racers.flatMap((racer) => racer.lines.filter((line) => line.startsWith('ACK ')).map((line) => line.slice(4)));
}

/**
 * Reads the holders' log: each round's holders in order, and every moment two held the lock at
 * once (a process that entered while another had not left).
 */
export function readHolders(log: string): { readonly holders: Map<string, string[]>; readonly overlaps: string[] } {
  const holders = new Map<string, string[]>();
  const overlaps: string[] = [];
  let holding: string | undefined;
  for (const line of log.split('\n').filter(Boolean)) {
    const [event, round = '', pid = ''] = line.split(' ');
    if (event === 'enter') {
      if (holding !== undefined) overlaps.push(`round ${round}: process ${pid} took the lock while process ${holding} held it`);
      holding = pid;
      holders.set(round, [...(holders.get(round) ?? []), pid]);
    } else {
      if (holding !== pid) overlaps.push(`round ${round}: process ${pid} left while process ${String(holding)} held the lock`);
      holding = undefined;
    }
  }
  return { holders, overlaps };
}
