// In every test file (a setupFiles module), once the file's tests and its own afterAll hooks are done
// (after hooks run last-registered first, and these are registered before the file's):
//   - the directories it made with tempDir() or tempConfigDir() are removed;
//   - no process it started is still running: any left (descending from this worker) are named, and
//     killed, and the file fails.

import { afterAll } from 'vitest';
import { describeProcess, killAll, waitForProcesses } from './helpers/leaks.js';
import { removeTempDirs } from './helpers/temp.js';

afterAll(() => removeTempDirs());

afterAll(async () => {
  const left = await waitForProcesses();
  if (left.length === 0) return;
  killAll(left);
  throw new Error(
    `processes this file started are still running (now killed):\n${left.map((p) => `  ${describeProcess(p)}`).join('\n')}`,
  );
});
