// The read API the usage and jobs commands build on (src/history/query.ts): usage rows with their
// invocation and `--resume` ref, what was created (of every profile), and empty answers, with nothing
// made, where there is no history.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../src/history/events.js';
import { historyDir } from '../../src/history/paths.js';
import { listInvocations, readCreated, readUsageRows, showInvocation } from '../../src/history/query.js';
import { offlineContext } from '../helpers/offline-context.js';
import { tempDir } from '../helpers/temp.js';
import { begin, DEAD_PID, end, journalFile, usage } from './journal-fixture.js';

function context() {
  return offlineContext({ AIP_DATA_DIR: tempDir('aip-history-'), AIP_EMULATOR_SQLITE: 'wasm' });
}

describe('the history read API', () => {
  it('answers empty, and makes nothing, when there is no history', async () => {
    const ctx = context();
    expect(await readUsageRows(ctx, {})).toEqual([]);
    expect(await readCreated(ctx, 'job')).toEqual([]);
    expect(await listInvocations(ctx, {})).toEqual([]);
    await expect(showInvocation(ctx, '1')).rejects.toMatchObject({ name: 'NotFoundError' });
    expect(existsSync(historyDir(ctx.env))).toBe(false);
  });

  it('gives every usage row with its invocation and ref, within since and until (of the answer)', async () => {
    const ctx = context();
    const file = journalFile(ctx.env, { pid: DEAD_PID });
    const run = file.run;
    file.append(
      begin(run, { command: 'train rl', profile: 'forge' }),
      { k: 'note', run, at: '2026-11-20T10:00:00Z', ref: '/runs/a' } as HistoryEvent,
      usage(run, 1, { at: '2026-11-20T10:00:01.000Z', job: 'job-1' }),
      usage(run, 2, { at: '2026-11-21T10:00:01.000Z', api: 'training', purpose: 'sample', samples: 8 }),
      end(run),
    );
    const all = await readUsageRows(ctx, {});
    expect(all).toEqual([
      {
        run,
        id: 1,
        at: '2026-11-20T10:00:01.000Z',
        command: 'train rl',
        profile: 'forge',
        ref: '/runs/a',
        api: 'inference',
        model: 'team/project/agent',
        purpose: 'sample',
        prompt_tokens: 11,
        completion_tokens: 5,
        samples: 1,
        job: 'job-1',
      },
      expect.objectContaining({ at: '2026-11-21T10:00:01.000Z', api: 'training', samples: 8, job: null }),
    ]);
    expect(await readUsageRows(ctx, { since: '2026-11-21T00:00:00.000Z' })).toHaveLength(1);
    expect(await readUsageRows(ctx, { until: '2026-11-21T00:00:00.000Z' })).toHaveLength(1);
  });

  it('gives what was created, of every profile, once however often the journal said it', async () => {
    const ctx = context();
    for (const profile of ['default', 'forge']) {
      const file = journalFile(ctx.env, { pid: DEAD_PID });
      const created = {
        k: 'created',
        run: file.run,
        at: '2026-11-20T10:00:02Z',
        what: 'job',
        id: `job-${profile}`,
        kind: 'rl',
        name: 'team/p/agent',
        base_url: `https://${profile}.example/v1`,
        profile,
      } as HistoryEvent;
      file.append(begin(file.run, { profile }), created, created, end(file.run));
    }
    const jobs = await readCreated(ctx, 'job');
    expect(jobs.map((j) => [j.object_id, j.profile, j.base_url, j.kind, j.name])).toEqual([
      ['job-default', 'default', 'https://default.example/v1', 'rl', 'team/p/agent'],
      ['job-forge', 'forge', 'https://forge.example/v1', 'rl', 'team/p/agent'],
    ]);
    expect(await readCreated(ctx, 'model')).toEqual([]);
    expect(existsSync(join(historyDir(ctx.env), 'history.db'))).toBe(true);
  });
});
