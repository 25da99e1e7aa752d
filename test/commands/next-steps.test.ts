// What to do next, in the message (issue 19): a 404 for a job or an inference model this machine does
// not know says where the known ones are listed (exit 3 as before). A stale name's message (it
// says how to forget it) and an uncertain create's (what finds out) are tested with their commands:
// forget.test.ts, models.test.ts, jobs.test.ts.

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const { run } = useEmulator();
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('next steps after a 404', () => {
  it('an unknown model on the Inference API points to the list of the ones it serves', async () => {
    const r = await run(['chat', '-m', 'nosuchmodel', 'hi']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: The model `nosuchmodel` does not exist \(HTTP 404 from POST \/inference\/v1\/chat\/completions, request id [\w-]+\); the models it serves: aip models list\n$/,
    );
    // A model it does serve: no hint, no error.
    const models = await run(['models', 'list', '--json']);
    const [served] = JSON.parse(models.stdout) as Array<{ id: string }>;
    expect((await run(['chat', '-m', served!.id, 'hi'])).code).toBe(0);
  });

  it('a job this machine never created points to the jobs it did', async () => {
    for (const args of [
      ['jobs', 'get', UNKNOWN_ID],
      ['jobs', 'wait', UNKNOWN_ID],
      ['events', UNKNOWN_ID],
    ]) {
      const r = await run(args);
      expect([args, r.code]).toEqual([args, 3]);
      expect(r.stderr).toMatch(/; the jobs created from this machine: aip jobs list\n$/);
    }
  });
});
