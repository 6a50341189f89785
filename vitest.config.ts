import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/**/*.test.ts', '.scratch/*.test.ts'],
    testTimeout: 60_000,
  },
});
