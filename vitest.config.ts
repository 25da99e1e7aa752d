import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { patience } from './test/helpers/patience.js';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export default defineConfig({
  define: { AIP_VERSION: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once (for the tests that spawn bin/aip.js), fixes the seed, gives the run a
    // temporary directory of its own, and after the run fails it if it left files or processes.
    globalSetup: ['test/global-setup.ts'],
    // In every test file: the seed of the generated cases; after it, its temporary directories removed
    // and a check that it left no process running.
    setupFiles: ['test/fast-check-seed.ts', 'test/cleanup.ts'],
    // A worker runs its test files one after another with the modules they import loaded once, not
    // once per file: that per-file start was a third of the run's CPU (npm test on 2 cores: 174 s of
    // CPU and 91 s wall with isolation, 112 s and 63 s without). So a helper module must not register
    // hooks or keep a test file's state when imported: it hands out a use…() that the file calls.
    isolate: false,
    // Most of a test's time is spent waiting on child processes and sockets, not computing: two
    // workers per core keep the cores busy (one per core: 1:33 wall on 2 cores, against 1:11).
    maxWorkers: availableParallelism() * 2,
    // A timeout is there to fail a test that hangs, not to time one (test/helpers/patience.ts): 60 s,
    // not 20, as tests that take 1–3 s on a quiet machine took 20–30 s on a busy one (2 cores, four
    // CPU-bound processes beside the run, load 12–25), and failed at 20 s. Tests that do more work set
    // their own, through patience() too; AIP_TEST_SLOWDOWN multiplies them all.
    testTimeout: patience(60_000),
    hookTimeout: patience(60_000),
  },
});
