// Jobs run to their end on a test's emulator, for the tests that read what a finished job shows.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { words } from './cli.js';
import type { EmulatorFixture, TestEmulator } from './emulator.js';
import { waitFor } from './wait.js';

const ENDED = new Set(['succeeded', 'failed']);

/**
 * Resolves once the emulator has run each of these jobs to its end (succeeded or failed), as its state
 * shows: what a test waits for, rather than sleeping for as long as a few steps take on a quiet machine.
 */
export async function jobsEnded(emu: TestEmulator, ids: readonly string[]): Promise<void> {
  await waitFor(
    async () => {
      const { jobs } = (await emu.control('GET', '/state')).body as {
        jobs: Array<{ id: string; status: string }>;
      };
      const status = new Map(jobs.map((j) => [j.id, j.status]));
      return ids.every((id) => ENDED.has(status.get(id) ?? ''));
    },
    undefined,
    `the end of job(s) ${ids.join(', ')}`,
  );
}

/**
 * A model named agent (a second create in the same test fails, unread) and, on it, an RL job of `steps` steps that the
 * emulator has run to its end: the job's id.
 */
export async function finishedJob(t: EmulatorFixture, steps = 2): Promise<string> {
  const { emu, run } = t;
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  await emu.control('POST', '/job-plans', { steps });
  const file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n');
  const id = (await run(words`jobs create rl --model agent --file ${file} -q`)).stdout.trim();
  await jobsEnded(emu, [id]);
  const { jobs } = (await emu.control('GET', '/state')).body as {
    jobs: Array<{ id: string; status: string }>;
  };
  if (jobs.find((j) => j.id === id)?.status !== 'succeeded') throw new Error(`job ${id} did not succeed`);
  return id;
}
