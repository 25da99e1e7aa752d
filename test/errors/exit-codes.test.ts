// Every exit code of product.md section 5: produced end to end where a command of the foundation can
// produce it, and through the one mapping (exitCodeFor) for the rest.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  BudgetReachedError,
  CommandFailedError,
  EXIT_CODE_TABLE,
  exitCodeFor,
  InterruptedError,
  JobFailedError,
  JobStalledError,
  NetworkError,
  NotFoundError,
  UsageError,
  WaitTimeoutError,
} from '../../src/errors/errors.js';
import { runCli } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { closedPort } from '../helpers/ports.js';

const { emu } = useEmulator();

describe('exit codes end to end', () => {
  it('0: success', async () => {
    expect((await runCli(['health'], { env: emu.env })).code).toBe(0);
  });

  it('1: a server error after retries, and an unreachable server', async () => {
    await emu.fault({ path: '/training/v1/system-check', status: 500, times: 5 });
    const server = await runCli(['--max-retries', '1', 'system-check'], { env: emu.env });
    expect(server.code).toBe(1);
    expect(server.stderr).toMatch(
      /error: The server had an error while processing your request \(HTTP 500 from GET \/training\/v1\/system-check, request id \w+\); gave up after 2 attempts\n$/,
    );
    const port = await closedPort();
    const network = await runCli(['--max-retries', '0', 'system-check'], {
      env: { AIP_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    expect(network).toMatchObject({
      code: 1,
      stderr: 'error: training API unreachable: GET /v1/system-check could not connect (ECONNREFUSED)\n',
    });
  });

  it('2: bad usage (unknown command, bad option value, missing argument)', async () => {
    for (const [argv, message] of [
      [['frobnicate'], "error: unknown command 'frobnicate'\n"],
      [
        ['--max-retries', 'many', 'health'],
        "error: option '--max-retries <n>' argument 'many' is invalid. expected a whole number from 0 to 10, got \"many\"\n",
      ],
      [['config', 'get'], "error: missing required argument 'key'\n"],
      [
        ['completion', 'powershell'],
        "error: command-argument value 'powershell' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.\n",
      ],
      [
        ['--project', 'nope', 'health'],
        "error: option '--project <team/project>' argument 'nope' is invalid. expected team/project, got \"nope\"\n",
      ],
    ] as const) {
      const r = await runCli([...argv], { env: emu.env });
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: message });
    }
    expect(await emu.requests()).toEqual([]);
  });

  it('2: input the server rejected (422), with one line per problem', async () => {
    await emu.fault({
      path: '/training/v1/system-check',
      status: 422,
      body: {
        detail: [{ loc: ['query', 'verbose'], msg: 'Input should be a valid boolean', type: 'bool_parsing' }],
      },
    });
    const r = await runCli(['system-check'], { env: emu.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: the training API rejected the request \(1 validation error\) \(HTTP 422 .*\)\n {2}query\.verbose: Input should be a valid boolean\n$/,
    );
  });

  it('3: not found', async () => {
    await emu.fault({ path: '/training/v1/system-check', status: 404 });
    const r = await runCli(['system-check'], { env: emu.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^error: Not Found \(HTTP 404 from GET \/training\/v1\/system-check, request id \w+\)\n$/,
    );
  });

  it('4: no key, and a key the server refuses', async () => {
    expect((await runCli(['auth', 'token'], {})).code).toBe(4);
    await emu.fault({
      path: '/training/v1/system-check',
      status: 403,
      body: { detail: 'Country, region, or territory not supported' },
    });
    const r = await runCli(['system-check'], { env: emu.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^error: Country, region, or territory not supported \(HTTP 403 .*\); run 'aip auth login' or set AIP_API_KEY\n$/,
    );
  });

  it('6: rate limited or out of quota, after retries', async () => {
    await emu.fault({ path: '/training/v1/system-check', status: 429, retry_after: 0, times: 10 });
    const limited = await runCli(['--max-retries', '2', 'system-check'], { env: emu.env });
    expect(limited.code).toBe(6);
    expect(limited.sleeps).toEqual([0, 0]);
    await emu.reset();
    await emu.fault({ path: '/training/v1/system-check', status: 402 });
    const quota = await runCli(['system-check'], { env: emu.env });
    expect(quota.code).toBe(6);
    expect(quota.stderr).toContain(
      'You exceeded your current quota, please check your plan and billing details (HTTP 402',
    );
  });

  it('130: interrupted (Ctrl-C at a prompt; see test/commands/auth.test.ts for the prompt itself)', () => {
    expect(exitCodeFor(new InterruptedError())).toBe(130);
  });
});

describe('the one mapping from errors to exit codes', () => {
  it('maps every error class and HTTP status', () => {
    const cases: Array<[unknown, number]> = [
      [new CommandFailedError('x'), 1],
      [new NetworkError('x'), 1],
      [new Error('a bug'), 1],
      ['a thrown string', 1],
      [new UsageError('x'), 2],
      [new NotFoundError('x'), 3],
      [new AuthError('x'), 4],
      [new JobFailedError('x'), 5],
      [new WaitTimeoutError('x'), 7],
      [new JobStalledError('x'), 8],
      [new BudgetReachedError('x'), 9],
      [new InterruptedError(), 130],
    ];
    for (const [status, code] of [
      [400, 2],
      [401, 4],
      [402, 6],
      [403, 4],
      [404, 3],
      [408, 1],
      [409, 1],
      [422, 2],
      [429, 6],
      [500, 1],
      [503, 1],
    ]) {
      cases.push([new ApiError('x', status!, undefined), code!]);
    }
    for (const [error, code] of cases) expect([error, exitCodeFor(error)]).toEqual([error, code]);
  });

  it('is documented by `aip help exit-codes`, code for code', async () => {
    const r = await runCli(['help', 'exit-codes'], {});
    expect(r.code).toBe(0);
    const documented = r.stdout.split('\n').flatMap((line) => /^ {2}(\d+) +(.+)$/.exec(line)?.slice(1) ?? []);
    expect(documented).toEqual(EXIT_CODE_TABLE.flatMap((row) => [String(row.code), row.meaning]));
    expect(EXIT_CODE_TABLE.map((row) => row.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 130, 143]);
  });

  it('is documented in docs/settings.md, code for code', () => {
    const readme = readFileSync(new URL('../../docs/settings.md', import.meta.url), 'utf8');
    const section = readme.split('## Exit codes')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\|\s*(\d+)\s*\|\s*(.+?)\s*\|$/gm)].map((m) => [
      Number(m[1]),
      m[2]!.replace(/`/g, ''),
    ]);
    expect(rows).toEqual(EXIT_CODE_TABLE.map((row) => [row.code, row.meaning]));
  });
});
