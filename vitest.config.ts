import { defineConfig } from 'vitest/config';

/** The core layers: no I/O, no process, no global state (see ARCHITECTURE.md), so nothing for a test file to leak to the next. */
const pure = ['src/{message,exchange,tokens,window,condense}/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    // Opening a PGlite store in a hook can take more than the default 10 s on a loaded 2-core machine.
    hookTimeout: 60_000,
    // Both cores: many tests wait on PGlite, child processes and loopback servers (about 10 min instead of 15).
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'io', include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts', '.scratch/*.test.ts'], exclude: [...pure, '**/node_modules/**'] },
      },
      // Not isolated: each worker imports the core modules once, not once a file (a second or two each).
      // Named to sort after `io`, so that these short files fill the end of the run.
      { extends: true, test: { name: 'pure', include: pure, isolate: false } },
    ],
  },
});
