// The cost of --jq (issue 17): `jobs list --json --jq '.[].id'` over 100 jobs against `jobs list --json`
// (target: at most 1.5x), and `health --jq .` against `health --json` (what loading the jq engine, ~1 MB
// of WebAssembly compiled on each run, adds to a command). The fixture is a config directory of its own
// whose jobs.json remembers 100 finished jobs of the bench's emulator: one created by `aip jobs create`
// (so the record has the shape aip writes), 99 more created over HTTP and recorded the same way.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { control } from './workloads.mjs';

const GROUPS = [{ trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'hi' }] }] }];

async function post(origin, key, path, body) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** The environment of a config directory that remembers `count` finished jobs of the emulator at `origin`. */
export async function jobsFixture({ node, bin, origin, key, env, dir }, count = 100) {
  const configDir = mkdtempSync(join(dir, 'bench-jq-'));
  const cliEnv = {
    ...env,
    AIP_CONFIG_DIR: configDir,
    AIP_BASE_URL: `${origin}/training/v1`,
    AIP_INFERENCE_URL: `${origin}/inference/v1`,
    AIP_TRACE_URL: `${origin}/trace`,
    AIP_API_KEY: key,
    AIP_PROJECT: 'bench/jq',
  };
  const aip = (args) => {
    const r = spawnSync(node, [bin, ...args], { env: cliEnv, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`aip ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const modelId = aip([
    'models',
    'create',
    '--name',
    'jq',
    '--base-model',
    'OpenPipe/Qwen3-14B-Instruct',
    '--return-existing',
    '-q',
  ]);
  const groups = join(configDir, 'groups.jsonl');
  writeFileSync(groups, `${JSON.stringify(GROUPS[0])}\n`);
  aip(['jobs', 'create', 'rl', '--model', 'jq', '--file', groups, '-q']);
  const record = join(configDir, 'jobs.json');
  const data = JSON.parse(readFileSync(record, 'utf8'));
  const [first] = data.jobs;
  for (let i = 1; i < count; i++) {
    const job = await post(origin, key, '/training/v1/preview/training-jobs', {
      model_id: modelId,
      trajectory_groups: GROUPS,
    });
    data.jobs.push({
      ...first,
      id: job.id,
      created_at: new Date(Date.parse(first.created_at) + i).toISOString(),
    });
  }
  writeFileSync(record, `${JSON.stringify(data, null, 2)}\n`);
  // Every job run to its end, so that listing them is the same work on every run.
  const ids = new Set(data.jobs.map((j) => j.id));
  for (let tries = 0; ; tries++) {
    const { jobs } = await control(origin, key, 'GET', '/state');
    const ended = jobs.filter((j) => ids.has(j.id) && j.status === 'succeeded').length;
    if (ended === ids.size) break;
    if (tries > 600) throw new Error(`only ${ended} of ${ids.size} bench jobs ended`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const listed = JSON.parse(aip(['jobs', 'list', '--json']));
  if (listed.length !== count) throw new Error(`jobs list shows ${listed.length} jobs, not ${count}`);
  return cliEnv;
}
