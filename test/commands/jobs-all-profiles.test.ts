// aip jobs list --all-profiles: two profiles, each with its own emulator and its own key. Every job of
// the machine is listed with the profile that made it; each is asked about through that profile, so a
// key only ever reaches its own profile's server; a profile that no longer points at a job's server,
// or has no key of its own, is not asked at all (the job shows its kept state, or unknown).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { runCli, tempConfigDir, words } from '../helpers/cli.js';
import { send } from '../helpers/emulator.js';

const KEY_A = 'alpha-key-0123456789abcdef';
const KEY_B = 'beta-key-fedcba9876543210';
/** A second account on emulator a: another key its server takes. */
const KEY_C = 'gamma-key-0a1b2c3d4e5f6789';

/** The emulator records a key by its last four characters: enough to tell these two apart. */
const SEEN_A = `Bearer ****${KEY_A.slice(-4)}`;
const SEEN_B = `Bearer ****${KEY_B.slice(-4)}`;
const SEEN_C = `Bearer ****${KEY_C.slice(-4)}`;

interface Emu {
  server: RunningEmulator;
  key: string;
}
let a: Emu;
let b: Emu;

async function control(emu: Emu, method: string, path: string, body?: unknown) {
  const res = await send(
    `${emu.server.origin}/_emulator${path}`,
    method,
    {
      authorization: `Bearer ${emu.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return JSON.parse(res.text);
}

/** The authorization headers of every request the emulator was sent since the last clear. */
async function keysSeen(emu: Emu): Promise<string[]> {
  const records = (await control(emu, 'GET', '/requests')).data as Array<{ headers: Record<string, string> }>;
  return records.map((r) => r.headers.authorization ?? '(none)');
}

beforeAll(async () => {
  const start = async (key: string, ...others: string[]) => ({
    server: await startEmulator({ port: 0, apiKeys: [key, ...others], stepMs: 2, tokenMs: 0 }),
    key,
  });
  a = await start(KEY_A, KEY_C);
  b = await start(KEY_B);
});
afterAll(async () => {
  await a?.server.close();
  await b?.server.close();
});

let env: Record<string, string>;
let configFile: string;
let groups: string;

function writeConfig(profiles: Record<string, Record<string, string>>): void {
  writeFileSync(configFile, JSON.stringify({ profiles }), { mode: 0o600 });
}

const profileOf = (emu: Emu, withKey = true) => ({
  'base-url': emu.server.urls.base,
  'inference-url': emu.server.urls.inference,
  'trace-url': emu.server.urls.trace,
  project: 'local/demo',
  ...(withKey ? { 'api-key': emu.key } : {}),
});

beforeEach(async () => {
  await control(a, 'POST', '/reset');
  await control(b, 'POST', '/reset');
  const dir = tempConfigDir();
  env = { AIP_CONFIG_DIR: dir, AIP_DATA_DIR: join(dir, 'data'), AIP_EMULATOR_SQLITE: 'wasm' };
  configFile = join(dir, 'config.json');
  groups = join(dir, 'groups.jsonl');
  writeFileSync(groups, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n'.repeat(2));
  writeConfig({ alpha: profileOf(a), beta: profileOf(b) });
});

const run = (argv: string | string[], extra: Record<string, string> = {}) =>
  runCli(argv, { env: { ...env, ...extra } });

/** A job of `profile` that its emulator holds queued for an hour: its state must be asked for. */
async function queuedJob(profile: string, emu: Emu): Promise<string> {
  const made = await run(
    `--profile ${profile} models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q`,
  );
  expect(made.code, made.stderr).toBe(0);
  await control(emu, 'POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
  const job = await run(words`--profile ${profile} jobs create rl --model agent --file ${groups} -q`);
  expect(job.code, job.stderr).toBe(0);
  return job.stdout.trim();
}

async function listAll(profile = 'alpha', extra: Record<string, string> = {}) {
  const r = await run(`--profile ${profile} jobs list --all-profiles --json`, extra);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
}

describe('aip jobs list --all-profiles', () => {
  it('asks about a job another profile made on the same server with that profile’s key, not this one’s', async () => {
    writeConfig({ alpha: profileOf(a), beta: profileOf(b), gamma: { ...profileOf(a), 'api-key': KEY_C } });
    const jobC = await queuedJob('gamma', a);
    await control(a, 'DELETE', '/requests');
    const jobs = await listAll('alpha');
    expect(jobs.map((j) => [j.id, j.state, j.profile])).toEqual([[jobC, 'queued', 'gamma']]);
    expect(new Set(await keysSeen(a))).toEqual(new Set([SEEN_C]));
  });

  it('lists every profile’s jobs, each asked through its own profile with its own key', async () => {
    const jobA = await queuedJob('alpha', a);
    const jobB = await queuedJob('beta', b);
    await control(a, 'DELETE', '/requests');
    await control(b, 'DELETE', '/requests');

    const jobs = await listAll('alpha');
    expect(jobs.map((j) => [j.id, j.state, j.profile, j.base_url])).toEqual([
      [jobB, 'queued', 'beta', b.server.urls.base],
      [jobA, 'queued', 'alpha', a.server.urls.base],
    ]);
    // Each server was asked, and only ever with its own key.
    const seenA = await keysSeen(a);
    const seenB = await keysSeen(b);
    expect(seenA.length).toBeGreaterThan(0);
    expect(seenB.length).toBeGreaterThan(0);
    expect(new Set(seenA)).toEqual(new Set([SEEN_A]));
    expect(new Set(seenB)).toEqual(new Set([SEEN_B]));

    // Without the flag: this profile's base URL only, as before, and no profile column.
    const plain = await run('--profile alpha jobs list --json');
    expect(JSON.parse(plain.stdout).map((j: { id: string }) => j.id)).toEqual([jobA]);
    expect(JSON.parse(plain.stdout)[0]).not.toHaveProperty('profile');

    // The table has a profile column.
    const table = await runCli('--profile beta jobs list --all-profiles', {
      env,
      stdoutTTY: true,
      columns: 200,
    });
    expect(table.stdout).toMatch(/PROFILE/);
    expect(table.stdout).toMatch(new RegExp(`${jobA}.*alpha`));
  });

  it('never sends a key from the environment, nor any key, to a profile that no longer points there', async () => {
    const jobA = await queuedJob('alpha', a);
    const jobB = await queuedJob('beta', b);
    await control(a, 'DELETE', '/requests');
    await control(b, 'DELETE', '/requests');

    // beta now points at A's server: its job (made on B) is not asked, through beta or anyone.
    writeConfig({ alpha: profileOf(a), beta: { ...profileOf(a), 'api-key': KEY_B } });
    let jobs = await listAll('alpha');
    expect(jobs.find((j) => j.id === jobB)).toMatchObject({ state: 'unknown', profile: 'beta' });
    expect(jobs.find((j) => j.id === jobA)).toMatchObject({ state: 'queued' });
    expect(await keysSeen(b)).toEqual([]);
    expect(new Set(await keysSeen(a))).toEqual(new Set([SEEN_A]));

    // beta points at B again but has no key of its own: the invocation's keys (AIP_API_KEY,
    // WANDB_API_KEY, alpha's) are never lent to it.
    await control(a, 'DELETE', '/requests');
    writeConfig({ alpha: profileOf(a), beta: profileOf(b, false) });
    jobs = await listAll('alpha', { AIP_API_KEY: KEY_A, WANDB_API_KEY: KEY_A });
    expect(jobs.find((j) => j.id === jobB)).toMatchObject({ state: 'unknown', profile: 'beta' });
    expect(await keysSeen(b)).toEqual([]);

    // A profile that is gone: the same.
    writeConfig({ alpha: profileOf(a) });
    jobs = await listAll('alpha');
    expect(jobs.find((j) => j.id === jobB)).toMatchObject({ state: 'unknown', profile: 'beta' });
    expect(await keysSeen(b)).toEqual([]);
  });

  it('lists the jobs the history knows and jobs.json does not (a forgotten job), asked all the same', async () => {
    const jobB = await queuedJob('beta', b);
    const forgot = await run(`--profile beta jobs forget ${jobB}`);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(JSON.parse((await run('--profile beta jobs list --json')).stdout)).toEqual([]);
    await control(b, 'DELETE', '/requests');
    const jobs = await listAll('alpha');
    expect(jobs).toEqual([
      expect.objectContaining({
        id: jobB,
        state: 'queued',
        profile: 'beta',
        kind: 'rl',
        model: 'local/demo/agent',
      }),
    ]);
    expect(new Set(await keysSeen(b))).toEqual(new Set([SEEN_B]));
  });

  it('still lists jobs.json when the history cannot be read, with a warning', async () => {
    const jobA = await queuedJob('alpha', a);
    const historyDir = join(env.AIP_DATA_DIR!, 'history');
    mkdirSync(historyDir, { recursive: true });
    writeFileSync(
      join(historyDir, 'history.db'),
      'this is not a database, and it is long enough to be read as one',
    );
    const r = await run('--profile alpha jobs list --all-profiles --json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the history could not be read .*: listing the jobs in jobs\.json only/);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({ id: jobA, profile: null, state: 'queued' }),
    ]);
  });
});
