// The run directory of `aip train rl` (src/train/run-dir.ts), imported directly: createRunDir and
// openRunDir read back what was written; what is refused (a directory holding a run already, one
// aip did not make, a run.json that is not JSON or not a run's state); run.json rewritten whole by
// save(), through a symbolic link, with nothing left beside it and the old file kept when a write
// fails; and the name defaultRunDir gives.

import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../../src/errors/errors.js';
import { createRunDir, defaultRunDir, openRunDir, RUN_FILE, type RunState } from '../../src/train/run-dir.js';
import { tempDir } from '../helpers/temp.js';

function state(overrides: Partial<RunState> = {}): RunState {
  return {
    version: 1,
    created_at: '2025-01-02T03:04:05.000Z',
    model: { id: 'model-1', name: 'agent', base_url: 'http://127.0.0.1:1/training/v1' },
    tasks: { path: '/tasks.jsonl', sha256: 'ab'.repeat(32), count: 8 },
    steps: 3,
    seed: 7,
    sampling: { group_size: 4, reward: 'exact', params: {} },
    experimental_config: {},
    log_split: null,
    iterations: [],
    ...overrides,
  };
}

const readRun = (dir: string): unknown => JSON.parse(readFileSync(join(dir, RUN_FILE), 'utf8'));

/** The error `work` throws (it must throw). */
function thrown(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('createRunDir and openRunDir', () => {
  it('round trip: what createRunDir wrote, openRunDir reads back', () => {
    const dir = join(tempDir(), 'run');
    const made = createRunDir(dir, state());
    expect(made.dir).toBe(dir);
    expect(readRun(dir)).toEqual(state());

    const opened = openRunDir(dir);
    expect(opened.dir).toBe(dir);
    expect(opened.state).toEqual(state());
    expect(opened.path('iteration-1/groups.jsonl')).toBe(join(dir, 'iteration-1', 'groups.jsonl'));
  });

  it('each save is read back by the next open, as the state was when saved', () => {
    const dir = join(tempDir(), 'run');
    const run = createRunDir(dir, state());
    run.state.iterations.push({
      iteration: 1,
      seed: 11,
      checkpoint_step: 0,
      groups_file: 'iteration-1/groups.jsonl',
      create_sent_at: '2025-01-02T03:04:06.000Z',
    });
    run.save();
    expect(openRunDir(dir).state.iterations).toEqual([
      {
        iteration: 1,
        seed: 11,
        checkpoint_step: 0,
        groups_file: 'iteration-1/groups.jsonl',
        create_sent_at: '2025-01-02T03:04:06.000Z',
      },
    ]);
    run.state.iterations[0]!.job_id = 'job-1';
    run.save();
    const reopened = openRunDir(dir);
    expect(reopened.state.iterations[0]!.job_id).toBe('job-1');

    // A run opened again goes on saving to the same file.
    reopened.state.iterations[0]!.job_state = 'succeeded';
    reopened.save();
    expect(openRunDir(dir).state.iterations[0]!.job_state).toBe('succeeded');
  });

  it('a relative path is resolved: dir is absolute', () => {
    const base = tempDir();
    const from = relative(process.cwd(), join(base, 'rel'));
    const run = createRunDir(from, state());
    expect(run.dir).toBe(join(base, 'rel'));
    expect(openRunDir(from).dir).toBe(join(base, 'rel'));
  });

  it('makes the directory and its missing parents; takes an empty directory that exists', () => {
    const base = tempDir();
    createRunDir(join(base, 'a', 'b', 'run'), state());
    expect(readRun(join(base, 'a', 'b', 'run'))).toEqual(state());
    mkdirSync(join(base, 'empty'));
    createRunDir(join(base, 'empty'), state());
    expect(readRun(join(base, 'empty'))).toEqual(state());
  });
});

describe('what createRunDir refuses', () => {
  it('a directory that holds a run already: a usage error pointing at --resume, the run untouched', () => {
    const dir = join(tempDir(), 'run');
    createRunDir(dir, state({ seed: 1 }));
    const before = readFileSync(join(dir, RUN_FILE), 'utf8');
    const error = thrown(() => createRunDir(dir, state({ seed: 2 })));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain('holds a run already');
    expect(error.message).toContain(`--resume ${dir}`);
    expect(readFileSync(join(dir, RUN_FILE), 'utf8')).toBe(before);
  });

  it('a directory that cannot be made (a file in the way): a usage error, nothing sent', () => {
    const base = tempDir();
    writeFileSync(join(base, 'file'), 'x');
    const error = thrown(() => createRunDir(join(base, 'file', 'run'), state()));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as CliError).hint).toContain('nothing was sent');
  });
});

describe('what openRunDir refuses', () => {
  it('a directory aip did not make (no run.json)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const error = thrown(() => openRunDir(dir));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      `${join(dir, RUN_FILE)} does not exist: --resume takes the directory of a train rl run`,
    );
  });

  it('a directory that does not exist', () => {
    const error = thrown(() => openRunDir(join(tempDir(), 'missing')));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/does not exist: --resume takes the directory of a train rl run$/);
  });

  it('a run.json that cannot be read (a directory): says why, with its code', () => {
    const dir = tempDir();
    mkdirSync(join(dir, RUN_FILE));
    const error = thrown(() => openRunDir(dir));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(`cannot read ${join(dir, RUN_FILE)} (EISDIR)`);
  });

  it('a run.json that is not JSON (a torn or hand-broken file)', () => {
    const dir = join(tempDir(), 'run');
    createRunDir(dir, state());
    const text = readFileSync(join(dir, RUN_FILE), 'utf8');
    writeFileSync(join(dir, RUN_FILE), text.slice(0, text.length / 2));
    const error = thrown(() => openRunDir(dir));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/run\.json: not valid JSON \(/);
    expect(error.message).not.toContain('\n');
  });

  const notRuns: Array<[string, unknown]> = [
    ['an array', []],
    ['null', null],
    ['another version', { ...state(), version: 2 }],
    ['no version', { ...state(), version: undefined }],
    ['no model', { ...state(), model: undefined }],
    ['a model without an id', { ...state(), model: { name: 'agent', base_url: 'x' } }],
    ['a model without a name', { ...state(), model: { id: 'model-1', base_url: 'x' } }],
    ['tasks without a path', { ...state(), tasks: { sha256: 'x', count: 1 } }],
    ['no sampling', { ...state(), sampling: undefined }],
    ['iterations not a list', { ...state(), iterations: {} }],
    ['steps not an integer', { ...state(), steps: 1.5 }],
    ['seed a string', { ...state(), seed: '7' }],
  ];
  for (const [name, value] of notRuns) {
    it(`a run.json that is JSON but not a run's state: ${name}`, () => {
      const dir = tempDir();
      writeFileSync(join(dir, RUN_FILE), JSON.stringify(value));
      const error = thrown(() => openRunDir(dir));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toBe(`${join(dir, RUN_FILE)} is not the state of an aip train rl run`);
    });
  }
});

describe('save: run.json written whole and atomically', () => {
  it('replaces the file whole with the state as it is, pretty and newline-ended, nothing left beside it', () => {
    const dir = join(tempDir(), 'run');
    const run = createRunDir(dir, state());
    for (let n = 1; n <= 3; n++) {
      run.state.iterations.push({
        iteration: n,
        seed: n,
        checkpoint_step: n * 2,
        groups_file: `iteration-${n}/groups.jsonl`,
      });
      run.save();
      const text = readFileSync(join(dir, RUN_FILE), 'utf8');
      expect(text).toBe(`${JSON.stringify(run.state, null, 2)}\n`);
      // No temporary file (.run.json.aip-<pid>-….tmp) stays after a save.
      expect(readdirSync(dir)).toEqual([RUN_FILE]);
    }
  });

  it('a run.json that is a symbolic link stays one: the file it points to is what is rewritten', () => {
    const base = tempDir();
    const dir = join(base, 'run');
    mkdirSync(join(base, 'elsewhere'));
    const target = join(base, 'elsewhere', 'state.json');
    writeFileSync(target, JSON.stringify(state()));
    mkdirSync(dir);
    symlinkSync(target, join(dir, RUN_FILE));

    const run = openRunDir(dir);
    run.state.iterations.push({
      iteration: 1,
      seed: 1,
      checkpoint_step: 0,
      groups_file: 'iteration-1/groups.jsonl',
    });
    run.save();
    expect(lstatSync(join(dir, RUN_FILE)).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, RUN_FILE))).toBe(target);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual(run.state);
    expect(readdirSync(join(base, 'elsewhere'))).toEqual(['state.json']);
  });

  it('a save that cannot write: an error (exit 1) naming the file and that it holds the state before', () => {
    const dir = join(tempDir(), 'run');
    const run = createRunDir(dir, state());
    // run.json replaced by a directory (with something in it): it cannot be written over.
    rmSync(join(dir, RUN_FILE));
    mkdirSync(join(dir, RUN_FILE));
    writeFileSync(join(dir, RUN_FILE, 'kept'), 'x');
    run.state.steps = 9;
    const error = thrown(() => run.save());
    expect(error).toBeInstanceOf(CliError);
    expect(error).not.toBeInstanceOf(UsageError);
    expect(error.message).toContain(`cannot write ${join(dir, RUN_FILE)}`);
    expect((error as CliError).hint).toContain(`${join(dir, RUN_FILE)} holds the state before this change`);
    expect(readdirSync(dir)).toEqual([RUN_FILE]);
    expect(readdirSync(join(dir, RUN_FILE))).toEqual(['kept']);
  });
});

describe('defaultRunDir', () => {
  it('is aip-train-<model name>-<UTC time to the second>', () => {
    expect(defaultRunDir('agent', new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678)))).toBe(
      'aip-train-agent-20250102T030405Z',
    );
    expect(defaultRunDir('agent', new Date('2024-12-31T23:59:59Z'))).toBe('aip-train-agent-20241231T235959Z');
  });

  it("keeps a name's letters, digits, dots, hyphens and underscores; anything else becomes one _", () => {
    const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));
    expect(defaultRunDir('Qwen3-14B.v2_rl', at)).toBe('aip-train-Qwen3-14B.v2_rl-20250102T030405Z');
    expect(defaultRunDir('team/project/agent', at)).toBe('aip-train-team_project_agent-20250102T030405Z');
    expect(defaultRunDir('my  agent!?', at)).toBe('aip-train-my_agent_-20250102T030405Z');
    expect(defaultRunDir('../up', at)).toBe('aip-train-.._up-20250102T030405Z');
  });
});
