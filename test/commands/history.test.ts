// `aip history` and its verbs, in-process: the list and its filters, show, on and off, prune, path,
// and the JSON forms; what comes from the journal reaches the terminal shown, not acted on.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../src/history/events.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { begin, DEAD_PID, end, journalFile, usage } from '../history/journal-fixture.js';

function envFor() {
  const configDir = tempConfigDir();
  return { AIP_CONFIG_DIR: configDir, AIP_DATA_DIR: join(configDir, 'data'), AIP_EMULATOR_SQLITE: 'wasm' };
}

type Env = ReturnType<typeof envFor>;

/** One finished command in the journal: its events between `begin` and `end`. */
function command(
  env: Env,
  over: Partial<HistoryEvent>,
  events: (run: string) => unknown[],
  exit = 0,
  at = 1,
) {
  const file = journalFile(env, { pid: DEAD_PID, at });
  file.append(
    begin(file.run, over),
    ...(events(file.run) as HistoryEvent[]),
    end(file.run, exit, exit === 0 ? {} : { error: 'the job failed' }),
  );
  return file.run;
}

const created = (run: string, what: 'model' | 'job', id: string, name?: string) =>
  ({
    k: 'created',
    run,
    at: '2026-11-20T10:00:02Z',
    what,
    id,
    name,
    kind: what === 'job' ? 'rl' : undefined,
    base_url: 'http://127.0.0.1:4010/v1',
    profile: 'local',
  }) as HistoryEvent;

/** Three commands: a models create, a jobs create rl (failed), a rollouts with usage. */
function seed(env: Env): string[] {
  return [
    command(
      env,
      {
        command: 'models create',
        argv: ['models', 'create', '--name', 'agent-001'],
        at: '2026-11-18T09:00:00.000Z',
      },
      (run) => [created(run, 'model', 'model-7', 'team/proj/agent-001')],
      0,
      1,
    ),
    command(
      env,
      {
        command: 'jobs create rl',
        argv: ['jobs', 'create', 'rl', '--model', 'agent-001'],
        at: '2026-11-19T09:00:00.000Z',
      },
      (run) => [
        created(run, 'job', 'job-42'),
        { k: 'note', run, at: '2026-11-19T09:00:01Z', model: 'team/proj/agent-001' },
      ],
      5,
      2,
    ),
    command(
      env,
      {
        command: 'rollouts',
        argv: ['rollouts', '-m', 'agent-001', 'tasks.jsonl'],
        at: '2026-11-20T09:00:00.000Z',
      },
      (run) => [
        { k: 'note', run, at: '2026-11-20T09:00:01Z', model: 'team/proj/agent-001', ref: '/work/out.jsonl' },
        usage(run, 1, { model: 'team/proj/agent-001', prompt_tokens: 100, completion_tokens: 20 }),
        usage(run, 2, { model: 'team/proj/agent-001', prompt_tokens: 50, completion_tokens: 10, samples: 4 }),
        usage(run, 3, { model: 'judge-model', purpose: 'judge', prompt_tokens: 7, completion_tokens: 1 }),
      ],
      0,
      3,
    ),
  ];
}

const ids = (stdout: string) => (JSON.parse(stdout) as Array<{ id: number }>).map((row) => row.id);

describe('aip history', () => {
  it('is empty, and makes nothing, when nothing was kept', async () => {
    const env = envFor();
    const r = await runCli('history', { env, stdoutTTY: true });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/No command is in the history yet/);
    expect(existsSync(join(env.AIP_DATA_DIR, 'history'))).toBe(false);
    expect((await runCli('history --json', { env })).stdout.trim()).toBe('[]');
    expect((await runCli('history', { env: { ...env, AIP_HISTORY: 'off' } })).stderr).toMatch(
      /No command is in the history: AIP_HISTORY=off keeps none/,
    );
    await runCli('history off', { env });
    expect((await runCli('history', { env })).stderr).toMatch(/it is off \(aip history on turns it on\)/);
  });

  it('lists newest first: a table on a terminal, tab-separated rows piped, --json, --jsonl, -q', async () => {
    const env = envFor();
    seed(env);
    const tty = await runCli('history', { env: { ...env, NO_COLOR: '1' }, stdoutTTY: true });
    expect(tty.code).toBe(0);
    const lines = tty.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/ID\s+WHEN\s+COMMAND\s+EXIT\s+DURATION\s+TOKENS IN\s+TOKENS OUT\s+CREATED/);
    expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(['3', '2', '1']);
    const piped = await runCli('history list', { env });
    expect(piped.stdout.split('\n')[0]!.split('\t')).toEqual([
      '3',
      '2026-11-20T09:00:00.000Z',
      'aip rollouts -m agent-001 tasks.jsonl',
      '0',
      '5m',
      '157',
      '31',
      '',
    ]);
    expect(piped.stdout.split('\n')[1]!.split('\t')[3]).toBe('5');
    expect(ids((await runCli('history --json', { env })).stdout)).toEqual([3, 2, 1]);
    const jsonl = (await runCli('history --jsonl', { env })).stdout.trim().split('\n');
    expect(jsonl.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([3, 2, 1]);
    expect(JSON.parse(jsonl[1]!)).toMatchObject({
      command: 'jobs create rl',
      exit: 5,
      error: 'the job failed',
      created: ['job-42'],
    });
    expect((await runCli('history -q', { env })).stdout).toBe('3\n2\n1\n');
    expect((await runCli(['history', '--jq', '.[0].prompt_tokens'], { env })).stdout).toBe('157\n');
  });

  it('filters by --since, --until, --command, --model, --job, --search and --limit', async () => {
    const env = envFor();
    seed(env);
    const list = async (args: string) => {
      const r = await runCli(`history --json ${args}`, { env });
      expect(r.stderr).toBe('');
      return ids(r.stdout);
    };
    expect(await list('--since 2026-11-19')).toEqual([3, 2]);
    expect(await list('--until 2026-11-19')).toEqual([1]);
    expect(await list('--since 2026-11-18T12:00:00Z --until 2026-11-20')).toEqual([2]);
    expect(await list('--command jobs')).toEqual([2]);
    expect(await list("--command 'models create'")).toEqual([1]);
    expect(await list('--model agent-001')).toEqual([3, 2, 1]);
    expect(await list('--model proj/agent-001')).toEqual([3, 2, 1]);
    expect(await list('--model judge-model')).toEqual([3]);
    expect(await list('--model agent')).toEqual([]);
    expect(await list('--job job-42')).toEqual([2]);
    expect(await list('--search MODEL-7')).toEqual([1]);
    expect(await list("--search 'job failed'")).toEqual([2]);
    expect(await list('--search tasks.jsonl')).toEqual([3]);
    expect(await list('--search out.jsonl')).toEqual([3]);
    expect(await list('--limit 2')).toEqual([3, 2]);
    expect(await list('--since 1000000d')).toEqual([3, 2, 1]);
    const bad = await runCli('history --since yesterday', { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since.*expected an age \(7d, 24h, 30m, 2w\) or an ISO date/);
  });

  it('show: everything recorded of one command, by id or by the start of its run key', async () => {
    const env = envFor();
    const runs = seed(env);
    const r = await runCli('history show 3 --json', { env });
    expect(r.code).toBe(0);
    const detail = JSON.parse(r.stdout);
    expect(detail).toMatchObject({
      id: 3,
      run: runs[2],
      command: 'rollouts',
      profile: 'default',
      cwd: '/work',
      exit: 0,
      requests: 3,
      samples: 6,
      notes: [{ model: 'team/proj/agent-001', ref: '/work/out.jsonl' }],
      usage: [
        {
          api: 'inference',
          model: 'team/proj/agent-001',
          purpose: 'sample',
          requests: 2,
          samples: 5,
          prompt_tokens: 150,
          completion_tokens: 30,
        },
        { model: 'judge-model', purpose: 'judge', requests: 1, prompt_tokens: 7 },
      ],
      bodies: [],
    });
    const byRun = await runCli(['history', 'show', runs[1]!.slice(0, 8)], { env });
    expect(byRun.code).toBe(0);
    expect(byRun.stdout).toMatch(/^command\taip jobs create rl --model agent-001$/m);
    expect(byRun.stdout).toMatch(/^error\tthe job failed$/m);
    expect(byRun.stdout).toMatch(/^job\tjob-42\t\trl\thttp:\/\/127\.0\.0\.1:4010\/v1$/m);
    const missing = await runCli('history show 99', { env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no invocation "99" in the history/);
    const ambiguous = await runCli('history show run', { env });
    expect(ambiguous.code).toBe(2);
  });

  it('show prints the bodies when they were kept', async () => {
    const env = envFor();
    command(env, { command: 'chat' }, (run) => [
      usage(run, 1, { purpose: 'chat' }),
      {
        k: 'body',
        run,
        at: '2026-11-20T10:00:01Z',
        api: 'inference',
        model: 'm',
        purpose: 'chat',
        request: { messages: [{ role: 'user', content: 'hi' }] },
        response: { choices: [{ message: { content: 'hello' } }] },
      },
    ]);
    const r = await runCli('history show 1 --json', { env });
    expect(JSON.parse(r.stdout).bodies).toEqual([
      expect.objectContaining({
        purpose: 'chat',
        request: { messages: [{ role: 'user', content: 'hi' }] },
        response: { choices: [{ message: { content: 'hello' } }] },
      }),
    ]);
    const text = await runCli('history show 1', { env, stdoutTTY: true });
    expect(text.stdout).toMatch(/bodies \(1\)/);
    expect(text.stdout).toMatch(/"content": "hello"/);
  });

  it('shows, never acts on, control characters from the journal', async () => {
    const env = envFor();
    command(env, { command: 'chat', argv: ['chat', '\u001b]52;c;aGk=\u0007evil'] }, (run) => [
      { k: 'end', run, at: '2026-11-20T10:00:01Z', exit: 1, error: 'bad\u001b[2Jthing', duration_ms: 5 },
    ]);
    for (const argv of ['history', 'history show 1']) {
      const r = await runCli(argv, { env, stdoutTTY: true });
      expect(r.stdout).not.toMatch(/\u001b\]|\u0007|\u001b\[2J/);
      expect(r.stdout).toMatch(/\^\[\]52;c;aGk=\^Gevil/);
    }
  });

  it('on and off write settings.json (0600) and say what is kept; on keeps the bodies choice', async () => {
    const env = envFor();
    const file = join(env.AIP_DATA_DIR, 'history', 'settings.json');
    const read = () => JSON.parse(readFileSync(file, 'utf8'));
    let r = await runCli('history on --bodies', { env });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/history on: .* with their bodies/);
    expect(read()).toEqual({ enabled: true, 'history.bodies': true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    r = await runCli('history off', { env });
    expect(r.stderr).toMatch(/history off: nothing more is kept/);
    expect(read()).toEqual({ enabled: false, 'history.bodies': true });
    r = await runCli('history on', { env });
    expect(read()).toEqual({ enabled: true, 'history.bodies': true });
    r = await runCli('history on --no-bodies --json', { env });
    expect(JSON.parse(r.stdout)).toEqual({ enabled: true, bodies: false });
    expect(read()).toEqual({ enabled: true, 'history.bodies': false });
    r = await runCli('history on', { env: { ...env, AIP_HISTORY: 'off' } });
    expect(r.stderr).toMatch(/AIP_HISTORY=off is set, and wins over this/);
  });

  it('prune --older-than removes what ended before, with its rows; says how many', async () => {
    const env = envFor();
    seed(env);
    // All three ended on 2026-11-20T10:05 (the fixture's end): a cutoff before keeps them all.
    let r = await runCli('history prune --older-than 2026-11-20', { env });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toMatch(/removed 0 commands that ended before 2026-11-20T00:00:00.000Z/);
    r = await runCli('history prune --older-than 1d --json', { env });
    expect(JSON.parse(r.stdout)).toMatchObject({ removed: 3 });
    expect((await runCli('history --json', { env })).stdout.trim()).toBe('[]');
    const missing = await runCli('history prune', { env });
    expect(missing.code).toBe(2);
  });

  it('path prints where the database is', async () => {
    const env = envFor();
    const r = await runCli('history path', { env });
    expect(r.stdout).toBe(`${join(env.AIP_DATA_DIR, 'history', 'history.db')}\n`);
  });
});
