import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export default defineConfig({
  define: { AIP_VERSION: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once, for the few tests that spawn bin/aip.js.
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/fast-check-seed.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
