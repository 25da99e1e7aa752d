// The tee across processes: writer processes (the writer bundled on its own, as `traces serve` runs
// it) append while this process folds, again and again: nothing lost, nothing twice; a writer killed
// with SIGKILL in the middle of its appends leaves whole records that are all read, and a torn tail
// that is not.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { build, stop } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { journalDirOf } from '../../../src/traces/store/paths.js';
import { withTraceStore } from '../../../src/traces/store/store.js';
import { patience } from '../../helpers/patience.js';
import { collect } from '../../helpers/spawn.js';
import { tempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';
import { hexId } from './requests.js';

const ROOT = resolve(import.meta.dirname, '../../..');
let script = '';

beforeAll(async () => {
  const dir = tempDir('aip-tee-writer-');
  const entry = join(dir, 'writer-entry.ts');
  // argv: data dir, first turn, turns, padding bytes a span, pause (ms) between turns.
  writeFileSync(
    entry,
    `import { openTeeWriter } from ${JSON.stringify(join(ROOT, 'src/traces/store/writer.ts'))};
     import { agentTurn, request, str } from ${JSON.stringify(join(ROOT, 'test/traces/store/requests.ts'))};
     const [dataDir, first, turns, pad, pause] = process.argv.slice(2);
     const writer = openTeeWriter({ AIP_DATA_DIR: dataDir }, { warn: (m) => console.error(m) });
     const padding = 'x'.repeat(Number(pad));
     let n = Number(first);
     const end = n + Number(turns);
     const next = () => {
       if (n >= end) { writer.close(); return; }
       const spans = agentTurn(n++);
       if (padding) for (const s of spans) s.attributes.push(str('pad', padding));
       writer.append(request(spans));
       if (Number(pause) > 0) setTimeout(next, Number(pause)); else setImmediate(next);
     };
     next();`,
  );
  script = join(dir, 'writer.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: script,
    logLevel: 'error',
  });
  // esbuild's service process would outlive the file otherwise.
  await stop();
}, patience(60_000));

function startWriter(dataDir: string, first: number, turns: number, pad = 0, pause = 1) {
  const child = spawn(
    process.execPath,
    [script, dataDir, String(first), String(turns), String(pad), String(pause)],
    {
      stdio: 'pipe',
    },
  );
  return { child, done: collect(child, patience(120_000)) };
}

const traceIds = async (env: { AIP_DATA_DIR: string }) =>
  (await withTraceStore(env, (db) =>
    db
      .prepare('SELECT trace_id, count(*) AS n FROM spans GROUP BY trace_id ORDER BY trace_id')
      .all()
      .map((row) => [String(row.trace_id), Number(row.n)] as const),
  )) ?? [];

describe('the tee across processes', () => {
  it('folds while three writers append: every span once', { timeout: patience(180_000) }, async () => {
    const env = { AIP_DATA_DIR: tempDir('aip-traces-'), AIP_EMULATOR_SQLITE: 'wasm' };
    const writers = [0, 1, 2].map((w) => startWriter(env.AIP_DATA_DIR, 1 + w * 1000, 200));
    let folds = 0;
    let running = true;
    void Promise.all(writers.map((w) => w.done)).then(() => {
      running = false;
    });
    while (running) {
      await withTraceStore(env, () => undefined);
      folds++;
      await delay(5);
    }
    for (const w of writers) expect(await w.done).toMatchObject({ code: 0, stderr: '' });
    const ids = await traceIds(env);
    expect(folds).toBeGreaterThan(1);
    expect(ids).toHaveLength(600);
    expect(ids.every(([, n]) => n === 3)).toBe(true);
    const expected = [0, 1, 2].flatMap((w) =>
      Array.from({ length: 200 }, (_, i) => hexId(1 + w * 1000 + i, 16)),
    );
    expect(ids.map(([id]) => id)).toEqual(expected.sort());
    // Every writer closed its file: all of them folded and removed.
    expect(readdirSync(journalDirOf(env))).toEqual([]);
  });

  it('a writer killed mid-append: its whole records are read, its torn tail is not', {
    timeout: patience(120_000),
  }, async () => {
    const env = { AIP_DATA_DIR: tempDir('aip-traces-'), AIP_EMULATOR_SQLITE: 'wasm' };
    // Large records (3 × 256 KB a turn), written as fast as it can: a kill lands mid-write often.
    const { child, done } = startWriter(env.AIP_DATA_DIR, 1, 100_000, 256 * 1024, 0);
    const dir = journalDirOf(env);
    const size = () => {
      const files = existsSync(dir) ? readdirSync(dir) : [];
      return files.length ? statSync(join(dir, files[0]!)).size : 0;
    };
    await waitFor(() => size() >= 8 * 1024 * 1024, patience(30_000), 'the journal at 8 MB');
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const ids = await traceIds(env);
    expect(ids.length).toBeGreaterThan(0);
    // The turns it wrote whole, from the first on, with nothing missing and nothing in part.
    expect(ids.map(([id]) => id)).toEqual(Array.from({ length: ids.length }, (_, i) => hexId(1 + i, 16)));
    expect(ids.every(([, n]) => n === 3)).toBe(true);
    // Its writer is gone: the file was folded, then removed.
    expect(readdirSync(dir)).toEqual([]);
  });
});
