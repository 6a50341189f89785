import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts', '.scratch/*.test.ts'],
    testTimeout: 60_000,
    // Opening a PGlite store in a hook can take more than the default 10 s on a loaded 2-core machine.
    hookTimeout: 60_000,
    // Both cores: many tests wait on PGlite, child processes and loopback servers (about 10 min instead of 15).
    maxWorkers: 2,
  },
});
