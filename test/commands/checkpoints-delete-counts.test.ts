// aip checkpoints delete when the server's answer disagrees with itself (issue 28): a count of deleted
// checkpoints that the steps it calls not found do not add up to, or a step called not found that was
// not asked for. The table shows the answer as it came (no list of deleted steps made up from it), and
// the error names the disagreement: the two never contradict each other.

import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const { emu, run } = useEmulator();
let id: string;
beforeEach(async () => {
  id = (await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).stdout.trim();
  await emu.control('POST', `/models/${id}/checkpoints`, { count: 4 });
});

/** The next delete of this model's checkpoints is answered with `body`. */
const answer = (body: { deleted_count: number; not_found_steps: number[] }) =>
  emu.fault({ method: 'DELETE', path: `/training/v1/preview/models/${id}/checkpoints`, status: 200, body });

const CASES = [
  {
    name: 'counts none deleted, but calls none not found',
    body: { deleted_count: 0, not_found_steps: [] },
    table: 'asked\t2,3\ndeleted count\t0\nnot found\t\n',
    why: 'it counts 0 deleted, but calls 0 of the 2 steps asked not found',
  },
  {
    name: 'counts more deleted than were asked',
    body: { deleted_count: 5, not_found_steps: [] },
    table: 'asked\t2,3\ndeleted count\t5\nnot found\t\n',
    why: 'it counts 5 deleted, but calls 0 of the 2 steps asked not found',
  },
  {
    name: 'counts one deleted, but calls every step not found',
    body: { deleted_count: 1, not_found_steps: [2, 3] },
    table: 'asked\t2,3\ndeleted count\t1\nnot found\t2,3\n',
    why: 'it counts 1 deleted, but calls 2 of the 2 steps asked not found',
  },
  {
    name: 'calls a step not found that was not asked for',
    body: { deleted_count: 1, not_found_steps: [3, 7] },
    table: 'asked\t2,3\ndeleted count\t1\nnot found\t3,7\n',
    why: 'it calls steps 7 not found, which were not asked for',
  },
];

describe('checkpoints delete, an answer that disagrees with itself', () => {
  it.each(CASES)('$name: the table shows the answer, the error the disagreement', async (c) => {
    await answer(c.body);
    const r = await run(['checkpoints', 'delete', 'agent', '--steps', '2,3', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(c.table);
    expect(r.stderr).toBe(
      `error: the answer to the delete of steps 2-3 of local/demo/agent (${id}) disagrees with itself: ${c.why}; which checkpoints are gone is not known; see what is left with aip checkpoints list agent --all\n`,
    );
    // --json: the answer as it came, and the same error.
    await answer(c.body);
    const json = await run(['checkpoints', 'delete', 'agent', '--steps', '2,3', '--yes', '--json']);
    expect([json.code, JSON.parse(json.stdout)]).toEqual([1, c.body]);
    expect(json.stderr).toContain(c.why);
  });

  it('an answer that agrees is shown as before: deleted and not found, step by step', async () => {
    await answer({ deleted_count: 1, not_found_steps: [3] });
    const r = await run(['checkpoints', 'delete', 'agent', '--steps', '2,3', '--yes']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deleted\t2\nnot found\t3\n', '']);
    await answer({ deleted_count: 0, not_found_steps: [2, 3] });
    const none = await run(['checkpoints', 'delete', 'agent', '--steps', '2,3', '--yes']);
    expect([none.code, none.stdout]).toEqual([3, 'deleted\t\nnot found\t2,3\n']);
  });
});
