// Strings from outside never drive the terminal. A hostile server answers every route aip uses with
// escape sequences in every string it controls (ids, names, metric names, event types, error details,
// the reply text): clear screen, retitle the window, write the clipboard (OSC 52), ring the bell, an
// 8-bit CSI, DEL, a bidi override and a lone carriage return. Every command that prints what a server
// said is run on a terminal (with colour, and without), piped, and with --json, success and error
// paths: nothing the server sent may reach stdout or stderr as a control character, --json must give
// back exactly what was sent, and aip's own colours still work.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitize } from '../../src/output/sanitize.js';
import { printTable } from '../../src/output/table.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/io.js';

/** Everything a terminal acts on, in one string. */
const EVIL = '\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;aGk=\u0007\u009b31m\u007f\u202e\rX';
/** The same, as aip shows it. */
const SHOWN = '^[[2J^[]0;pwned^G^[]52;c;aGk=^GM-^[31m^?<U+202E>^MX';

/** Any character a terminal would act on (tab and newline are text). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** aip's own colours (SGR), which may stand on a terminal with colour on. */
const OWN_SGR = /\u001b\[\d+(;\d+)*m/g;
/** The redraws of aip's status line and of ora's spinner: hide/show the cursor, synchronised update, to column 1, clear the line, up. */
const OWN_REDRAW = /\r(?=\u001b)|\u001b\[\?(25|2026)[hl]|\u001b\[\d*[GAK]/g;

const MODEL = '3f0c2a1e-5b6d-4c7e-8f90-a1b2c3d4e5f6';
const JOB = '7d1e9b20-4a3c-4b5d-9e6f-0a1b2c3d4e5f';

/** Answers in the platform's shapes, every string field holding EVIL; `fail` answers errors instead. */
function answer(method: string, path: string, fail: boolean): [number, unknown] {
  if (fail) {
    if (path.includes('/checkpoints') && method === 'GET')
      return [422, { detail: [{ loc: ['query', EVIL], msg: EVIL, type: 'value_error' }] }];
    if (path.includes('/inference/')) return [404, { error: { message: EVIL, type: EVIL, code: 404 } }];
    return [404, { detail: EVIL }];
  }
  if (path.endsWith('/health')) return [200, { status: EVIL }];
  if (path.endsWith('/system-check'))
    return [
      200,
      { api: true, database: { success: true, duration_ms: 1, error: null }, [EVIL]: { ok: true } },
    ];
  if (path.endsWith('/base-models')) return [200, [EVIL]];
  if (path.endsWith('/preview/models')) {
    return [200, { id: MODEL, entity: 'team', project: 'proj', name: EVIL, base_model: EVIL, run_id: EVIL }];
  }
  if (path.endsWith('/checkpoints')) {
    const data = [{ id: `ck-${EVIL}`, step: 1, metrics: { [`reward${EVIL}`]: 0.5, reward: 0.5 } }];
    return [200, { object: 'list', data, first_id: '', last_id: '', has_more: false }];
  }
  if (path.endsWith('/events')) {
    const data = [
      { id: 'e1', type: 'training_started', data: { num_sequences: 1 } },
      { id: 'e2', type: 'gradient_step', data: { reward: 0.5, [`loss${EVIL}`]: 1 } },
      { id: `e3${EVIL}`, type: EVIL, data: { note: EVIL } },
      { id: 'e4', type: 'training_failed', data: { error_message: EVIL } },
    ];
    return [200, { object: 'list', data, first_id: 'e1', last_id: 'e4', has_more: false }];
  }
  if (path.includes('/training-jobs/'))
    return [200, { id: JOB, status: EVIL, kind: EVIL, model_id: EVIL, created_at: EVIL }];
  if (path.endsWith('/models'))
    return [200, { object: 'list', data: [{ id: EVIL, object: 'model', owned_by: EVIL }] }];
  if (path.endsWith('/chat/completions')) {
    const message = { role: 'assistant', content: EVIL };
    return [
      200,
      {
        id: 'c',
        object: 'chat.completion',
        model: EVIL,
        choices: [{ index: 0, message, finish_reason: 'stop' }],
      },
    ];
  }
  return [404, { detail: `no route ${EVIL}` }];
}

let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const [status, body] = answer(req.method ?? 'GET', url.pathname, url.pathname.startsWith('/fail/'));
      // A header may carry bytes 0x80-0xff (Node refuses the C0 ones): an 8-bit CSI, shown in errors.
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-\u009b31m' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** `quiet`: on success the command shows nothing the server wrote (only --json does). */
const COMMANDS: Array<{ name: string; argv: string[]; json?: boolean; quiet?: 'success' | 'always' }> = [
  { name: 'health', argv: ['health'], json: true, quiet: 'success' },
  { name: 'system-check', argv: ['system-check'], json: true },
  // Its 404 means an older deployment, and aip says that in its own words.
  { name: 'models base', argv: ['models', 'base'], json: true, quiet: 'always' },
  { name: 'models list', argv: ['models', 'list'], json: true },
  { name: 'models create', argv: ['models', 'create', '--name', 'n', '--base-model', 'b'], json: true },
  { name: 'checkpoints list', argv: ['checkpoints', 'list', MODEL], json: true },
  {
    name: 'checkpoints list --plot',
    argv: ['checkpoints', 'list', MODEL, '--plot', 'reward'],
    quiet: 'success',
  },
  { name: 'jobs get', argv: ['jobs', 'get', JOB], json: true },
  { name: 'jobs wait', argv: ['jobs', 'wait', JOB] },
  { name: 'events', argv: ['events', JOB], json: true },
  { name: 'events --jsonl', argv: ['events', JOB, '--jsonl'], json: true },
  { name: 'events --follow', argv: ['events', JOB, '--follow'] },
  { name: 'chat', argv: ['chat', '-m', 'm', '--no-stream', 'hi'], json: true },
  { name: 'chat --api training', argv: ['chat', '--api', 'training', '-m', 'm', 'hi'] },
];

const MODES = [
  { mode: 'terminal, colour on', stdoutTTY: true, stderrTTY: true, env: { FORCE_COLOR: '1' } },
  { mode: 'terminal, no colour', stdoutTTY: true, stderrTTY: true, env: { NO_COLOR: '1' } },
  { mode: 'piped', stdoutTTY: false, stderrTTY: false, env: {} },
] as const;

function envFor(prefix: string, extra: Record<string, string>) {
  return {
    AIP_BASE_URL: `${origin}${prefix}/training/v1`,
    AIP_INFERENCE_URL: `${origin}${prefix}/inference/v1`,
    AIP_TRACE_URL: `${origin}${prefix}/trace`,
    AIP_API_KEY: 'sanitize-test-key-0123456789',
    AIP_PROJECT: 'team/proj',
    AIP_CONFIG_DIR: tempConfigDir(),
    ...extra,
  };
}

/** The problems of one output: a control character that is not aip's own colour. */
function leaks(text: string): string[] {
  const bare = text.replace(OWN_SGR, '').replace(OWN_REDRAW, '');
  const found = CONTROLS.exec(bare);
  return found
    ? [
        `U+${found[0].charCodeAt(0).toString(16).padStart(4, '0')} at …${JSON.stringify(bare.slice(Math.max(0, found.index - 20), found.index + 20))}`,
      ]
    : [];
}

let cases = 0;
describe('every command that prints what a server said', () => {
  for (const command of COMMANDS) {
    for (const path of ['success', 'error'] as const) {
      for (const m of MODES) {
        it(`${command.name}, ${path}, ${m.mode}`, async () => {
          const env = envFor(path === 'error' ? '/fail' : '', m.env);
          const r = await runCli(['--max-retries', '0', '--timeout', '2', ...command.argv], {
            env,
            stdoutTTY: m.stdoutTTY,
            stderrTTY: m.stderrTTY,
            sleepCap: 1,
          });
          cases++;
          expect(leaks(r.stdout), `stdout of ${command.argv.join(' ')}`).toEqual([]);
          expect(leaks(r.stderr), `stderr of ${command.argv.join(' ')}`).toEqual([]);
          // The server's words are there, shown: not dropped (JSON Lines escape them as JSON does).
          const shown = `${r.stdout}${r.stderr}`.replace(OWN_SGR, '');
          if (command.name === 'events --jsonl' && path === 'success')
            expect(shown).toContain('\\u001b]52;c;aGk=\\u0007');
          else if (command.quiet !== 'always' && !(command.quiet === 'success' && path === 'success'))
            expect(shown).toMatch(/\^\[\]52;c;aGk=\^G/);
          if (m.mode === 'terminal, colour on' && path === 'error')
            expect(r.stderr).toMatch(/\u001b\[31merror:\u001b\[39m/);
        });
      }
      if (command.json && path === 'success') {
        it(`${command.name} --json gives back exactly what was sent`, async () => {
          const argv = command.argv.includes('--jsonl') ? command.argv : [...command.argv, '--json'];
          const r = await runCli(argv, { env: envFor('', {}), stdoutTTY: true });
          cases++;
          expect(leaks(r.stdout)).toEqual([]);
          expect(r.stdout).toContain('\\u001b]52;c;aGk=\\u0007');
          expect(r.stdout).toContain('\\u009b31m\\u007f\\u202e\\rX');
          const values = command.argv.includes('--jsonl')
            ? r.stdout
                .trimEnd()
                .split('\n')
                .map((line) => JSON.parse(line))
            : JSON.parse(r.stdout);
          expect(JSON.stringify(values)).toContain(JSON.stringify(EVIL).slice(1, -1));
        });
      }
    }
  }
  afterAll(() => {
    console.log(
      `sanitised: ${COMMANDS.length} commands × ${MODES.length} output modes × 2 paths, and --json: ${cases} runs`,
    );
  });
});

describe('the sanitiser', () => {
  it('shows every control as cat -v does, keeps tabs, newlines and CRLF', () => {
    expect(sanitize(EVIL)).toBe(SHOWN);
    expect(sanitize('a\tb\nc\r\nd')).toBe('a\tb\nc\r\nd');
    expect(sanitize('\u0000\u0001\u001f\u0080\u009f\u2066\u200f')).toBe('^@^A^_M-^@M-^_<U+2066><U+200F>');
    expect(sanitize(sanitize(EVIL))).toBe(SHOWN);
  });

  it('lets through only the styling and redraws aip asks for', () => {
    const { io, stdout, stderr } = fakeIO({ stdoutTTY: true, stderrTTY: true, env: { FORCE_COLOR: '1' } });
    io.out(io.style.red(`id ${EVIL}`));
    io.out(`${io.style.bold('a')}${EVIL}`);
    io.errWrite(`${io.control('\r\u001b[2K')}status ${EVIL}`);
    expect(stdout.text).toBe(`\u001b[31mid ${SHOWN}\u001b[39m\n\u001b[1ma\u001b[22m${SHOWN}\n`);
    expect(stderr.text).toBe(`\r\u001b[2Kstatus ${SHOWN}`);
    // Text that merely looks like a trusted mark is not one.
    io.out('\uE000\u001b[2J\uE001');
    expect(stdout.text.endsWith('\uE000^[[2J\uE001\n')).toBe(true);
  });

  it('keeps tables aligned on what is shown', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: true, env: { NO_COLOR: '1' } });
    printTable(
      io,
      [
        { a: `x${EVIL}`, b: 1 },
        { a: 'y', b: 2 },
      ],
      [
        { header: 'a', value: (r) => r.a },
        { header: 'b', value: (r) => r.b },
      ],
    );
    const lines = stdout.text.trimEnd().split('\n');
    expect(lines.map((l) => l.lastIndexOf(l.trim().split(/\s+/).at(-1)!))).toEqual([
      lines[0]!.lastIndexOf('B'),
      lines[0]!.lastIndexOf('B'),
      lines[0]!.lastIndexOf('B'),
    ]);
  });

  it('--json escapes DEL, C1 and bidi controls as JSON does, so the value is exact', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: true });
    io.json({ v: EVIL });
    expect(CONTROLS.test(stdout.text)).toBe(false);
    expect(JSON.parse(stdout.text)).toEqual({ v: EVIL });
  });
});
