// Every request the CLI sends to the Training API validates against the published OpenAPI document:
// the commands are run against the emulator, and what it recorded is checked operation by operation.
// (test/contract/ checks the same and more with an independent oracle, Stoplight Prism; this one stays
// as the fast check that names the operation and the field of any request that strays.)

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { describeWithContract, loadContract } from '../helpers/openapi.js';

const { emu } = useEmulator({ fresh: 'file' });

describeWithContract('requests against training-openapi.json', (document) => {
  it('flags a request that does not conform (the check itself can fail)', async () => {
    const contract = loadContract(document);
    const record = {
      seq: 1,
      request_id: 'r',
      time: '',
      method: 'POST',
      path: '/training/v1/preview/models',
      query: {},
      headers: {},
      body: { project: 'p', name: 7 },
      route: '',
      status: 200,
      fault: null,
      duration_ms: 1,
    };
    expect(contract.check(record)).toEqual([
      "body: must have required property 'base_model'",
      'body/name: must be string',
    ]);
    expect(
      contract.check({
        ...record,
        method: 'GET',
        path: '/training/v1/preview/models/x/checkpoints',
        body: null,
        query: { limit: '500', sort: 'x' },
      }),
    ).toEqual(['query.limit: must be <= 100', 'query.sort: not a parameter of the operation']);
  });

  it('holds for every Training API request: models, checkpoints, log, RL and SFT jobs, events', async () => {
    await emu.reset();
    const env = { ...emu.env, AIP_CONFIG_DIR: tempConfigDir(), AIP_PROJECT: 'local/demo' };
    const run = async (args: string[], stdin?: string) => {
      const r = await runCli(args, { env, stdin, sleepCap: 5 });
      expect([args.join(' '), r.code, r.stderr]).toEqual([args.join(' '), 0, expect.any(String)]);
      return r.stdout.trim();
    };
    const base = 'OpenPipe/Qwen3-14B-Instruct';
    const id = await run(['models', 'create', '--name', 'conform', '--base-model', base, '-q']);
    await run(['models', 'create', '--name', 'conform', '--base-model', base, '--return-existing', '-q']);
    await emu.control('POST', `/models/${id}/checkpoints`, { count: 120 });
    await run(['checkpoints', 'list', 'conform']);
    await run(['checkpoints', 'list', 'conform', '--all', '--order', 'desc', '--limit', '50']);
    await run([
      'checkpoints',
      'list',
      'conform',
      '--after',
      JSON.parse(await run(['checkpoints', 'list', 'conform', '--json'])).at(-1).id,
    ]);
    await run(['checkpoints', 'delete', 'conform', '--steps', '1-3', '--yes']);
    await run(['checkpoints', 'prune', 'conform', '--keep-last', '5', '--keep-best', 'reward', '--yes']);
    const file = join(env.AIP_CONFIG_DIR, 'groups.jsonl');
    const trajectory = {
      reward: 0.5,
      messages_and_choices: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          finish_reason: 'tool_calls',
          index: 0,
          logprobs: { content: [{ token: 'x', logprob: -0.1, top_logprobs: [] }] },
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        },
        { role: 'tool', content: 'ok', tool_call_id: 'c1' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      metrics: { correct: true, steps: 3 },
      metadata: { task: 'demo', difficulty: null },
      logs: ['started'],
    };
    writeFileSync(file, `${JSON.stringify({ trajectories: [trajectory, { reward: 0 }] })}\n`);
    await run(['models', 'log', 'conform', '--split', 'train', '--file', file]);
    await run([
      'jobs',
      'create',
      'rl',
      '--model',
      'conform',
      '--file',
      file,
      '--learning-rate',
      '1e-5',
      '--loss-fn',
      'cispo',
      '--allow-training-without-logprobs',
      '--config',
      '{"importance_sampling_level": "sequence", "kl_penalty_reference_step": 0}',
      '--wait',
      '--interval',
      '0.01',
    ]);
    const sft = join(env.AIP_CONFIG_DIR, 'train.jsonl');
    writeFileSync(
      sft,
      `${JSON.stringify({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
        ],
      })}\n`,
    );
    const sftJob = await run([
      'jobs',
      'create',
      'sft',
      '--model',
      'conform',
      '--data-url',
      'wandb-artifact:///local/demo/train:v0',
      '--file',
      sft,
      '--batch-size',
      'auto',
      '--learning-rate',
      '1e-5,2e-5',
      '--assistant-turns',
      'all',
      '--config',
      '{"metric_logging": {"enabled": true}}',
      '--experimental-config',
      '{"seed": 1}',
      '-q',
    ]);
    await run(['jobs', 'get', sftJob]);
    await run(['events', sftJob, '--follow', '--interval', '0.01']);
    await run(['events', sftJob, '--limit', '3']);
    await run(['models', 'delete', 'conform', '--yes']);

    const contract = loadContract(document);
    const records = (await emu.requests()).filter((r) => r.path.startsWith('/training/'));
    const operations = new Set(records.map((r) => `${r.method} ${contract.templateFor(r)}`));
    expect([...operations].sort()).toEqual([
      'DELETE /v1/preview/models/{model_id}',
      'DELETE /v1/preview/models/{model_id}/checkpoints',
      'GET /v1/preview/models/{model_id}/checkpoints',
      'GET /v1/preview/training-jobs/{training_job_id}',
      'GET /v1/preview/training-jobs/{training_job_id}/events',
      'POST /v1/preview/models',
      'POST /v1/preview/models/{model_id}/log',
      'POST /v1/preview/sft-training-jobs',
      'POST /v1/preview/training-jobs',
    ]);
    for (const record of records)
      expect([record.method, record.path, contract.check(record)]).toEqual([record.method, record.path, []]);
  });
});
