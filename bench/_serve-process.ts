/**
 * The built CLI's `serve` in a process of its own, as a user runs it: the load generator and the
 * upstream stay in the benchmark's process, so that neither takes the proxy's event loop or CPU.
 * With `SLIDING_CONTEXT_BENCH_CPU_PROF=<dir>` set, the proxy writes a V8 CPU profile there when
 * it stops (`node --cpu-prof`). The proxy that only forwards (forwarding-proxy.ts) starts the same
 * way, for the floor of the overhead clock.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLI = 'dist/cli/main.js';
const MiB = 2 ** 20;

/** A running `sliding-context serve`. */
export interface ServeProcess {
  /** Where it listens, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** The largest resident set the process has had so far (Linux's `VmHWM`), MiB; NaN where it cannot be read. */
  peakRssMiB(): number;
  /** The CPU time it has used so far, user and system (Linux's `/proc/<pid>/stat`), ms; NaN where it cannot be read. */
  cpuMs(): number;
  /** What it wrote to stderr: the requests it could not serve, or answers it could not store. */
  problems(): string;
  /** SIGTERM, as Ctrl-C: it stops taking requests, stores what is in flight and closes the store. */
  stop(): Promise<void>;
}

function peakRssOf(pid: number | undefined): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
    return match?.[1] === undefined ? Number.NaN : (Number(match[1]) * 1024) / MiB;
  } catch {
    return Number.NaN;
  }
}

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`: 100 on Linux). */
const CLOCK_TICKS = 100;

function cpuMsOf(pid: number | undefined): number {
  try {
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', resolve);
  });
}

/** Starts `serve --port 0` with `args` (the store, the upstream, the budget) and waits until it listens. */
export function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  const profileDir = process.env.SLIDING_CONTEXT_BENCH_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return startListening('serve', [...profile, CLI, 'serve', '--port', '0', ...args]);
}

/** Starts the proxy that only forwards to `upstreamUrl` (bench/forwarding-proxy.ts), the floor of the clock. */
export function startForwardingProxy(upstreamUrl: string): Promise<ServeProcess> {
  return startListening('the forwarding proxy', ['--import', 'tsx', 'bench/forwarding-proxy.ts', upstreamUrl]);
}

/** Runs node with `nodeArgs` and waits until the process prints `listening on <URL>`. */
async function startListening(name: string, nodeArgs: readonly string[]): Promise<ServeProcess> {
  const child = spawn(process.execPath, nodeArgs, {
    env: { ...process.env, DATABASE_URL: '', SLIDING_CONTEXT_DATA_DIR: '', SLIDING_CONTEXT_TOKENS: '', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let problems = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    problems += chunk.toString();
  });
  const exited = exitOf(child);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then((code) => {
      reject(new RangeError(`${name} exited (${String(code)}) before it listened; is dist/ built (npm run build)?\n${output}`));
    });
  });
  // What it prints after it listens goes unread: the pipe must not fill.
  child.stdout.resume();
  return {
    url,
    peakRssMiB: () => peakRssOf(child.pid),
    cpuMs: () => cpuMsOf(child.pid),
    problems: () => problems,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0 && code !== 143) throw new RangeError(`${name} exited with ${String(code)}:\n${output}`);
    },
  };
}
