// --jq EXPR on the commands that print JSON: jq itself (compiled to WebAssembly) filters what --json
// would print; strings come out raw and other values as compact JSON (as gh prints them); a bad
// expression is a usage error before anything is sent; jq's runtime errors end the command (exit 1);
// what a server sent stays harmless for a terminal.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeTransport, type Transport } from '../../src/api/transport.js';
import { compileJq } from '../../src/output/jq.js';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { finishedJob } from '../helpers/jobs.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, run } = t;

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

function groupsFile(): string {
  const file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n');
  return file;
}

describe('the engine', () => {
  it('is jq itself, 1.8', async () => {
    const jq = await compileJq('.', { pretty: false });
    expect(jq.version).toMatch(/^jq-1\.8\./);
  });

  it('gives each result on its own: strings decoded, other values as jq wrote them', async () => {
    const jq = await compileJq('.[], 100000000000000000001, 1.0', { pretty: false });
    expect(jq.run(['a\nb', { x: [1] }, null]).outputs).toEqual([
      { text: 'a\nb', json: false },
      { text: '{"x":[1]}', json: true },
      { text: 'null', json: true },
      { text: '100000000000000000001', json: true },
      { text: '1.0', json: true },
    ]);
  });

  it('indents objects as jq does when asked to (a terminal)', async () => {
    const jq = await compileJq('.', { pretty: true });
    expect(jq.run({ a: [1] }).outputs).toEqual([{ text: '{\n  "a": [\n    1\n  ]\n}', json: true }]);
  });

  it('never runs the expression to compile it (an endless one is checked at once)', async () => {
    const jq = await compileJq('repeat(1)', { pretty: false });
    expect(jq.expression).toBe('repeat(1)');
  });

  it('takes an expression that starts with "-" as a program, not a flag', async () => {
    expect((await compileJq('-1', { pretty: false })).run(null).outputs).toEqual([
      { text: '-1', json: true },
    ]);
    await expect(compileJq('--arg', { pretty: false })).rejects.toThrow(/^--jq: arg\/0 is not defined/);
  });
});

describe('--jq on each command', () => {
  it('models list: one raw id per line', async () => {
    const json = JSON.parse((await run('models list --json')).stdout) as Array<{ id: string }>;
    const r = await run(['models', 'list', '--jq', '.[].id']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lines(r.stdout)).toEqual(json.map((m) => m.id));
    expect(json.length).toBeGreaterThan(1);
  });

  it('models base: the names, and `length`', async () => {
    const json = JSON.parse((await run('models base --json')).stdout) as unknown[];
    expect((await run(['models', 'base', '--jq', 'length'])).stdout).toBe(`${json.length}\n`);
  });

  it('models create: the id of what was created', async () => {
    const r = await run([
      'models',
      'create',
      '--name',
      'agent',
      '--base-model',
      'OpenPipe/Qwen3-14B-Instruct',
      '--jq',
      '.id',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
  });

  it('checkpoints list --all: every page, then the filter over the one array', async () => {
    await finishedJob(t, 5);
    await emu.control('DELETE', '/requests');
    const r = await run([
      'checkpoints',
      'list',
      'agent',
      '--all',
      '--limit',
      '2',
      '--jq',
      '[.[].step] | @csv',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('0,1,2,3,4,5\n');
    const pages = (await emu.requests()).filter((q) => q.path.endsWith('/checkpoints'));
    expect(pages).toHaveLength(3);
  });

  it('events --all: select over every page', async () => {
    const id = await finishedJob(t, 3);
    const r = await run([
      'events',
      id,
      '--all',
      '--limit',
      '2',
      '--jq',
      '.[] | select(.type == "gradient_step") | .data.gradient_step',
    ]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(['1', '2', '3']);
  });

  it('jobs list and jobs get', async () => {
    const id = await finishedJob(t, 1);
    expect((await run(['jobs', 'list', '--jq', '.[].id'])).stdout).toBe(`${id}\n`);
    const got = await run(['jobs', 'get', id, '--jq', '{id, state}']);
    expect(got.code).toBe(0);
    const value = JSON.parse(got.stdout) as { id: string; state: unknown };
    expect(value.id).toBe(id);
    expect(got.stdout).toBe(`${JSON.stringify(value)}\n`); // compact, one line
  });

  it('health: objects compact, one per line', async () => {
    const r = await run(['health', '--jq', '.[] | {interface, ok}']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '{"interface":"training","ok":true}',
      '{"interface":"inference","ok":true}',
      '{"interface":"trace","ok":true}',
    ]);
  });

  it('system-check: keys', async () => {
    const r = await run(['system-check', '--jq', 'keys | map(select(. != "api")) | .[]']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(expect.arrayContaining(['database', 'gpu_queue']));
  });

  it('config list and config get', async () => {
    expect((await run(['config', 'list', '--jq', '.project'])).stdout).toBe('local/demo\n');
    const got = await run(['config', 'get', 'project', '--jq', '.source']);
    expect(got.stdout).toBe('env AIP_PROJECT\n');
  });

  it('auth status: the key masked, never the key', async () => {
    const r = await run(['auth', 'status', '--jq', '.api_key.masked, (.interfaces[] | .key)']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(emu.key);
    expect(lines(r.stdout).slice(1)).toEqual(['accepted', 'accepted', 'not checked']);
  });

  it('auth status: $ENV is not the process environment, so a key cannot be printed through it', async () => {
    const r = await run(['auth', 'status', '--jq', '$ENV | keys | .[]']);
    expect(r.stdout).not.toContain('AIP_API_KEY');
  });

  it('traces send --dry-run: the counts', async () => {
    const file = join(t.dir, 'spans.json');
    const span = {
      traceId: `${'0'.repeat(31)}1`,
      spanId: `${'0'.repeat(15)}1`,
      name: 's',
      startTimeUnixNano: '1',
      endTimeUnixNano: '2',
    };
    const resource = { attributes: [{ key: 'wandb.project', value: { stringValue: 'local/demo' } }] };
    writeFileSync(file, JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans: [span] }] }] }));
    const r = await run(['traces', 'send', file, '--dry-run', '--jq', '[.spans, .dry_run] | @tsv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\ttrue\n');
  });
});

describe('on a terminal', () => {
  it('objects and arrays are indented as jq indents them; strings are still raw', async () => {
    const r = await run(['health', '--jq', '.[0] | {interface, ok}, .interface'], { stdoutTTY: true });
    expect(r.stdout).toBe('{\n  "interface": "training",\n  "ok": true\n}\ntraining\n');
  });
});

describe("jq's own language", () => {
  it('map, select, sort_by, @csv, @sh, string interpolation', async () => {
    const expr =
      'map(select(.interface != "trace")) | sort_by(.interface) | reverse | map(.interface) | @csv, @sh, "n=\\(length)"';
    const r = await run(['health', '--jq', expr]);
    expect(r.stdout).toBe('"training","inference"\n\'training\' \'inference\'\nn=2\n');
  });

  it('null, numbers and booleans print as jq prints them; no output prints nothing', async () => {
    expect((await run(['health', '--jq', '.[0].nothing, (.[0].ok | not), 1.5'])).stdout).toBe(
      'null\nfalse\n1.5\n',
    );
    expect((await run(['health', '--jq', 'empty'])).stdout).toBe('');
  });

  it('debug goes to stderr, the results to stdout', async () => {
    const r = await run(['config', 'list', '--jq', '.project | debug']);
    expect(r.stdout).toBe('local/demo\n');
    expect(r.stderr).toBe('["DEBUG:","local/demo"]\n');
  });
});

describe('errors', () => {
  it("a bad expression is exit 2 with jq's message on one line, and a create is never sent", async () => {
    const r = await run([
      'models',
      'create',
      '--name',
      'agent',
      '--base-model',
      'OpenPipe/Qwen3-14B-Instruct',
      '--jq',
      '.id[',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: --jq: syntax error, unexpected end of file at line 1, column 4\n');
    expect(await emu.requests({ path: '/training/v1/preview/models' })).toEqual([]);
    expect(await emu.requests()).toEqual([]);
  });

  it('a job is never created either: the expression is checked before the file is even read', async () => {
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    await emu.control('DELETE', '/requests');
    const r = await run(words`jobs create rl --model agent --file ${groupsFile()} --jq ${'.id | ('}`);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^error: --jq: syntax error, unexpected end of file at line 1, column \d+\n$/);
    expect(await emu.requests()).toEqual([]);
    expect(((await emu.control('GET', '/state')).body as { jobs: unknown[] }).jobs).toEqual([]);
  });

  it('an unknown function and an empty expression are usage errors too', async () => {
    const r = await run(['health', '--jq', 'nosuch(1)']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('error: --jq: nosuch/1 is not defined at line 1, column 1\n');
    expect((await run(['health', '--jq', ''])).code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  });

  it('a jq error at run time is exit 1, after the results before it', async () => {
    const r = await run(['health', '--jq', '.[0].interface, .foo']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('training\n');
    expect(r.stderr).toBe('error: --jq: Cannot index array with string ("foo")\n');
  });

  it('error() and halt_error are run-time errors too', async () => {
    expect((await run(['health', '--jq', 'error("stop here")'])).stderr).toBe('error: --jq: stop here\n');
    const halted = await run(['health', '--jq', '"bye\\n" | halt_error(3)']);
    expect(halted).toMatchObject({ code: 1, stderr: 'error: --jq: halt_error: bye\n' });
  });

  it('--json with --jsonl is a usage error, for any command, and nothing is sent', async () => {
    const r = await run('models list --json --jsonl');
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('error: give --json (one document) or --jsonl (one item per line), not both\n');
    expect(await emu.requests()).toEqual([]);
  });
});

describe('what a server sent stays harmless', () => {
  /** Clipboard write (OSC 52), clear screen, an 8-bit CSI, DEL, a bidi override. */
  const EVIL = '\u001b]52;c;aGk=\u0007\u001b[2J\u009b31m\u007f\u202e';
  const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
  /** The emulator's base models, with a hostile name among them. */
  const hostile: Transport = async (request) => {
    const response = await nodeTransport(request);
    if (!request.url.endsWith('/base-models')) return response;
    const models = JSON.parse(response.body.toString()) as string[];
    return { ...response, body: Buffer.from(JSON.stringify([...models, `evil${EVIL}`])) };
  };

  it('a raw string shows terminal controls as text (as cat -v does)', async () => {
    const r = await run(['models', 'base', '--jq', '.[-1]'], { transport: hostile });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('evil^[]52;c;aGk=^G^[[2JM-^[31m^?<U+202E>\n');
  });

  it('JSON results keep them escaped, exactly as --json does', async () => {
    const r = await run(['models', 'base', '--jq', '{id: .[-1]}'], { transport: hostile });
    expect(r.stdout).not.toMatch(CONTROLS);
    expect(JSON.parse(r.stdout)).toEqual({ id: `evil${EVIL}` });
    expect(r.stdout).toContain('\\u009b31m\\u007f\\u202e');
  });
});
