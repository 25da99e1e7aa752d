// A command that now and then folds a journal grown past TIDY_FILES files into the store, so that the
// history stays bounded for someone who never reads it.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryRecorder, TIDY_FILES } from '../../src/history/recorder.js';
import { tempDir } from '../helpers/temp.js';
import { begin, end, journalFile } from '../history/journal-fixture.js';

const DEAD_PID = 2 ** 22 + 11;

function recorder(env: Record<string, string>) {
  return new HistoryRecorder({
    env,
    historyDir: () => join(env.AIP_DATA_DIR!, 'history'),
    warn: (message) => {
      throw new Error(`no warning expected: ${message}`);
    },
    invocation: () => ({
      command: 'health',
      argv: ['health'],
      profile: 'default',
      training_url: 'http://127.0.0.1:1/v1',
      inference_url: 'http://127.0.0.1:1/v1',
      trace_url: 'http://127.0.0.1:1',
      cwd: '/',
      version: 'test',
    }),
  });
}

describe('the journal, tidied by the commands that write it', () => {
  it('past its bound, a command folds it into the store on its way out; below it, nothing is read', async () => {
    const env = { AIP_DATA_DIR: tempDir() };
    for (let i = 0; i < TIDY_FILES; i++) {
      const file = journalFile(env, { pid: DEAD_PID, at: 1000 + i });
      file.append(begin(file.run), end(file.run));
    }
    const journal = join(env.AIP_DATA_DIR, 'history', 'journal');
    const quiet = recorder(env);
    expect(quiet.contacted()).toBe(true);
    quiet.end(0);
    // One command in many looks: this one did not.
    await quiet.tidy(() => 0.99);
    expect(readdirSync(journal)).toHaveLength(TIDY_FILES + 1);
    expect(existsSync(join(env.AIP_DATA_DIR, 'history', 'history.db'))).toBe(false);

    const next = recorder(env);
    expect(next.contacted()).toBe(true);
    next.end(0);
    await next.tidy(() => 0);
    expect(readdirSync(journal)).toEqual([]);
    expect(existsSync(join(env.AIP_DATA_DIR, 'history', 'history.db'))).toBe(true);
  });
});
