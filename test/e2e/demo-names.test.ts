// `aip emulator --demo` seeds a model and a finished job on the emulator's side. aip names only what
// this machine remembers, so the emulator's process remembers the demo's model and job too
// (src/commands/emulator/remember-demo.ts): the names the README gives work in every command.

import { afterAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { patience } from '../helpers/patience.js';
import { runAip } from '../helpers/spawn.js';

const KEY = 'aip-emulator-local-key';
const configs: string[] = [];

afterAll(async () => {
  for (const config of configs) await runAip(['emulator', 'stop'], { env: { AIP_CONFIG_DIR: config } });
});

describe('aip emulator --demo', () => {
  it('remembers demo-agent and its job, so that commands can name them', {
    timeout: patience(90_000),
  }, async () => {
    const config = tempConfigDir();
    configs.push(config);
    const started = await runAip(['emulator', '--detach', '--port', '0', '--ephemeral', '--demo', '--json'], {
      env: { AIP_CONFIG_DIR: config },
    });
    expect(started.code, started.stderr).toBe(0);
    const { origin } = JSON.parse(started.stdout) as { origin: string };
    const env = {
      AIP_CONFIG_DIR: config,
      AIP_BASE_URL: `${origin}/training/v1`,
      AIP_INFERENCE_URL: `${origin}/inference/v1`,
      AIP_TRACE_URL: `${origin}/trace`,
      AIP_API_KEY: KEY,
      AIP_PROJECT: 'local/demo',
    };

    const checkpoints = await runAip(['checkpoints', 'list', 'demo-agent', '--json'], { env });
    expect(checkpoints.code, checkpoints.stderr).toBe(0);
    const steps = (JSON.parse(checkpoints.stdout) as Array<{ step: number }>).map((c) => c.step);
    expect(steps).toContain(8);

    const jobs = await runAip(['jobs', 'list', '--json'], { env });
    expect(jobs.code, jobs.stderr).toBe(0);
    const listed = JSON.parse(jobs.stdout) as Array<{ id: string; model: string; state: string }>;
    expect(listed).toEqual([expect.objectContaining({ model: 'local/demo/demo-agent', state: 'succeeded' })]);
    const got = await runAip(['jobs', 'get', listed[0]!.id, '--json'], { env });
    expect(got.code, got.stderr).toBe(0);

    const chat = await runAip(['chat', '-m', 'demo-agent', 'How did the training go?'], { env });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout.trim()).not.toBe('');

    // A second start on the same state (here: another --demo, answered "already running") adds no duplicate.
    const again = await runAip(['emulator', '--detach', '--port', '0', '--ephemeral', '--demo', '--json'], {
      env: { AIP_CONFIG_DIR: config },
    });
    expect(again.code, again.stderr).toBe(0);
    const models = await runAip(['checkpoints', 'list', 'demo-agent', '--json'], { env });
    expect(models.code, models.stderr).toBe(0);
  });
});
