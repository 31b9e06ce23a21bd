import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

export default defineConfig({
  plugins: [svelte()],
  test: {
    include: ['src/**/*.spec.ts', 'workers/**/*.spec.ts', 'scripts/**/*.spec.ts', 'test/**/*.spec.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // two cores: keep the pool small so heavy engine suites do not starve each other.
    maxWorkers: 2,
  },
});
