// The durable emulator: its state directory keeps everything across a restart, and a kill -9 at any
// moment loses nothing it acknowledged; ids are never reused; a job keeps to the wall clock across a
// restart, so that a follow or a wait that outlives the emulator still sees every event once; a
// damaged, foreign or busy state directory is refused in one line and left as it is. Every case runs
// on each SQLite binding this Node has (node:sqlite where it has it, the WebAssembly build everywhere);
// what is particular to the bindings is in durable-drivers.test.ts.

import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/lib/seeded-random.js';
import { runCli } from '../helpers/cli.js';
import { patience } from '../helpers/patience.js';
import { freePort } from '../helpers/ports.js';
import { TEST_SEED } from '../helpers/seed.js';
import { runAip } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait.js';
import { call, DRIVERS, type Driver, GROUPS, KEY, kill9, MODEL, useDurable } from './durable-helpers.js';

const { root, stateDir, ...durable } = useDurable();

/** Everything a client can see of the emulator's state, to compare before and after a restart. */
async function snapshot(origin: string, modelId: string, jobId: string) {
  const checkpoints = await call(
    origin,
    'GET',
    `/training/v1/preview/models/${modelId}/checkpoints?limit=100`,
  );
  const events = await call(origin, 'GET', `/training/v1/preview/training-jobs/${jobId}/events?limit=100`);
  const job = await call(origin, 'GET', `/training/v1/preview/training-jobs/${jobId}`);
  const logs = await call(origin, 'GET', '/_emulator/logs');
  const spans = await call(origin, 'GET', '/_emulator/spans');
  const requests = await call(origin, 'GET', '/_emulator/requests?path=/training/v1/preview/models');
  return {
    checkpoints: checkpoints.body,
    events: events.body,
    job: job.body,
    logs: logs.body,
    spans: { total: spans.body.total, data: spans.body.data, accepted: spans.body.accepted },
    requests: requests.body.data.map((r: { seq: number; status: number; path: string }) => [
      r.seq,
      r.status,
      r.path,
    ]),
  };
}

describe.each(DRIVERS)('on %s', (driver: Driver) => {
  const start = (dir: string | undefined, options: { seed?: number; port?: number } = {}) =>
    durable.start(dir, { ...options, sqlite: driver });
  const { stop } = durable;
  const emulatorProcess = async (dir: string, port: number) =>
    (await durable.emulatorProcess(dir, port, driver)).child;

  describe('a state directory', () => {
    it('keeps every kind of state across a restart: models, checkpoints, jobs and events, logs, spans, the request record', async () => {
      const dir = stateDir();
      const first = await start(dir);
      // What users sent is theirs: the directory 0700, the database 0600.
      expect([statSync(dir).mode & 0o777, statSync(join(dir, 'emulator.db')).mode & 0o777]).toEqual([
        0o700, 0o600,
      ]);
      const { body: model } = await call(first.origin, 'POST', '/training/v1/preview/models', MODEL);
      await call(first.origin, 'POST', `/_emulator/models/${model.id}/checkpoints`, { count: 3 });
      await call(first.origin, 'POST', `/training/v1/preview/models/${model.id}/log`, {
        split: 'val',
        trajectory_groups: GROUPS,
      });
      const { body: job } = await call(first.origin, 'POST', '/training/v1/preview/training-jobs', {
        model_id: model.id,
        trajectory_groups: GROUPS,
      });
      // Its schedule run to its end, however slow the machine.
      await waitFor(
        async () =>
          (
            await call(first.origin, 'GET', `/training/v1/preview/training-jobs/${job.id}/events?limit=100`)
          ).body.data.some((e: { type: string }) => e.type === 'training_ended'),
        undefined,
        'the job ended',
      );
      // Spans, through the emulator's own demo seeding (the ingest path's parts and counts).
      const { seedDemo } = await import('../../src/emulator/index.js');
      expect(seedDemo(first.state)).toBe(false); // not empty: the demo leaves a state that holds something alone
      const spansBefore = first.state.spans.stored();
      const before = await snapshot(first.origin, model.id, job.id);
      expect(before.events.data.map((e: { type: string }) => e.type).at(-1)).toBe('training_ended');
      expect(before.logs.data).toHaveLength(1);
      await stop(first);

      const second = await start(dir);
      expect(await snapshot(second.origin, model.id, job.id)).toEqual({
        ...before,
        requests: before.requests,
      });
      expect(second.state.spans.stored()).toBe(spansBefore);
      // The record goes on from where it was: no sequence number is used twice.
      await call(second.origin, 'GET', '/training/v1/health');
      const all = (await call(second.origin, 'GET', '/_emulator/requests')).body.data as Array<{
        seq: number;
      }>;
      expect(new Set(all.map((r) => r.seq)).size).toBe(all.length);
    });

    it('keeps the spans trace ingest accepted, with their counts, and a demo seeded once', async () => {
      const dir = stateDir();
      const first = await start(dir);
      const { seedDemo } = await import('../../src/emulator/index.js');
      expect(seedDemo(first.state)).toBe(true);
      const spans = (await call(first.origin, 'GET', '/_emulator/spans')).body;
      expect(spans.total).toBe(9);
      await stop(first);
      const second = await start(dir);
      const after = (await call(second.origin, 'GET', '/_emulator/spans')).body;
      expect(after).toEqual(spans);
      expect(seedDemo(second.state)).toBe(false);
      const models = second.state.counts();
      expect(models).toMatchObject({ models: 1, jobs: 1, spans: 9 });
    });

    it('gives ids that differ across two fresh runs, and the same ones for the same --seed', async () => {
      const jobIds = async (dir: string | undefined, seed?: number) => {
        const emu = await start(dir, { seed });
        const { body: model } = await call(emu.origin, 'POST', '/training/v1/preview/models', MODEL);
        const { body: job } = await call(emu.origin, 'POST', '/training/v1/preview/training-jobs', {
          model_id: model.id,
          trajectory_groups: GROUPS,
        });
        await stop(emu);
        return [model.id, job.id];
      };
      const [a, b] = [await jobIds(stateDir()), await jobIds(stateDir())];
      expect(a[0]).not.toBe(b[0]);
      expect(a[1]).not.toBe(b[1]);
      expect((await jobIds(undefined, 7))[1]).toBe((await jobIds(undefined, 7))[1]);
      // And never reused across a restart of the same directory, seeded or not.
      const dir = stateDir();
      const first = await jobIds(dir, 7);
      const second = await jobIds(dir, 7);
      expect(second[1]).not.toBe(first[1]);
    });

    it("is refused in one line, and left as it is, when busy, damaged or not an emulator's", async () => {
      const busy = stateDir();
      await start(busy);
      await expect(start(busy)).rejects.toThrow(
        /^the emulator state directory .* is in use by another emulator \(pid \d+@/,
      );

      const damaged = stateDir();
      mkdirSync(damaged);
      writeFileSync(
        join(damaged, 'emulator.db'),
        'not a database at all, but long enough to look like one'.repeat(20),
      );
      await expect(start(damaged)).rejects.toThrow(/has a database that cannot be opened .*left as it is/);
      expect(readdirSync(damaged)).toEqual(['emulator.db']);

      const foreign = stateDir();
      mkdirSync(foreign);
      writeFileSync(join(foreign, 'thesis.tex'), 'mine');
      await expect(start(foreign)).rejects.toThrow(/holds files that are not an emulator's \(thesis\.tex\)/);
      expect(readdirSync(foreign)).toEqual(['thesis.tex']);
    });
  });

  describe('kill -9', () => {
    it('at random moments of a loop of creates loses no create that was acknowledged', {
      timeout: patience(180_000),
    }, async () => {
      const dir = stateDir();
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      const acknowledged: string[] = [];
      let rounds = 0;
      // Seeded: the same moments on every run.
      const random = seededRandom(TEST_SEED);
      for (; rounds < 6; rounds++) {
        const child = await emulatorProcess(dir, port);
        let stopped = false;
        const before = acknowledged.length;
        const writers = Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; !stopped; i++) {
            try {
              const r = await call(origin, 'POST', '/training/v1/preview/models', {
                ...MODEL,
                name: `r${rounds}-w${w}-${i}`,
              });
              if (r.status === 200) acknowledged.push(r.body.id);
            } catch {
              return; // the emulator is gone: this request was never answered
            }
          }
        });
        // At a random moment, counted in creates acknowledged rather than in time: a busy machine
        // slows the creates down, and a kill timed by the clock then cuts rounds too short to test.
        const killAfter = 10 + Math.floor(random() * 40);
        while (acknowledged.length - before < killAfter)
          await new Promise((resolve) => setTimeout(resolve, 2));
        await kill9(child);
        stopped = true;
        await Promise.all(writers);
      }
      const child = await emulatorProcess(dir, port);
      const state = (await call(origin, 'GET', '/_emulator/state')).body as { models: Array<{ id: string }> };
      const kept = new Set(state.models.map((m) => m.id));
      const lost = acknowledged.filter((id) => !kept.has(id));
      expect(acknowledged.length).toBeGreaterThan(rounds * 10);
      expect(lost).toEqual([]);
      console.log(
        `kill -9: ${rounds} kills, ${acknowledged.length} acknowledged creates, ${lost.length} lost`,
      );
      await kill9(child);
    });

    it('in the middle of a job: events --follow and jobs wait print every event once and end with exit 0', {
      timeout: patience(180_000),
    }, async () => {
      const dir = stateDir();
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      let child = await emulatorProcess(dir, port);
      const env = {
        AIP_BASE_URL: `${origin}/training/v1`,
        AIP_INFERENCE_URL: `${origin}/inference/v1`,
        AIP_TRACE_URL: `${origin}/trace`,
        AIP_API_KEY: KEY,
        AIP_PROJECT: 'local/demo',
      };
      const { body: model } = await call(origin, 'POST', '/training/v1/preview/models', MODEL);
      await call(origin, 'POST', '/_emulator/job-plans', { steps: 20 });
      const { body: job } = await call(origin, 'POST', '/training/v1/preview/training-jobs', {
        model_id: model.id,
        trajectory_groups: GROUPS,
      });
      const follow = runCli(['events', job.id, '--follow', '--jsonl', '--interval', '0.05'], {
        env,
        realSleep: true,
      });
      const wait = runCli(['--json', 'jobs', 'wait', job.id, '--interval', '0.05'], { env, realSleep: true });
      // Down for a while in the middle of the schedule: the job keeps to the wall clock meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await kill9(child);
      await new Promise((resolve) => setTimeout(resolve, 400));
      child = await emulatorProcess(dir, port);
      const [followed, waited] = await Promise.all([follow, wait]);
      expect([followed.code, waited.code]).toEqual([0, 0]);
      const ids = followed.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids).toHaveLength(22);
      expect(new Set(ids).size).toBe(22);
      expect(JSON.parse(waited.stdout)).toMatchObject({ state: 'succeeded', step: 20 });
      const events = (
        await call(origin, 'GET', `/training/v1/preview/training-jobs/${job.id}/events?limit=100`)
      ).body;
      expect(events.data.map((e: { id: string }) => e.id)).toEqual(ids);
      await kill9(child);
    });
  });

  describe('aip emulator, the command', () => {
    it('status names the state directory and what it holds; reset empties it (asking first); --demo seeds it', {
      timeout: patience(90_000),
    }, async () => {
      const dir = stateDir();
      const env = { AIP_CONFIG_DIR: join(root, `config-cmd-${driver}`), AIP_EMULATOR_SQLITE: driver };
      const started = await runAip(
        ['emulator', '--detach', '--port', '0', '--state-dir', dir, '--demo', '--json'],
        { env },
      );
      expect(started.code).toBe(0);
      try {
        const status = await runAip(['emulator', 'status', '--json'], { env });
        expect(JSON.parse(status.stdout)).toMatchObject({
          state_dir: dir,
          counts: { models: 1, checkpoints: 9, jobs: 1, events: 10, spans: 9 },
        });
        const refused = await runAip(['emulator', 'reset'], { env });
        expect([refused.code, refused.stderr]).toEqual([
          2,
          'error: refusing to empty the emulator without --yes: there is no terminal to confirm on\n',
        ]);
        const reset = await runAip(['emulator', 'reset', '--yes'], { env });
        expect(reset.code).toBe(0);
        const after = JSON.parse((await runAip(['emulator', 'status', '--json'], { env })).stdout);
        expect(after.counts).toMatchObject({ models: 0, jobs: 0, spans: 0 });
      } finally {
        await runAip(['emulator', 'stop'], { env });
      }
      const ephemeral = await runAip(['emulator', '--ephemeral', '--state-dir', dir], { env });
      expect([ephemeral.code, ephemeral.stderr]).toEqual([
        2,
        'error: give --ephemeral (state in memory only) or --state-dir, not both\n',
      ]);
    });
  });
});
