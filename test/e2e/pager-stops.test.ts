// Issue 28: paging stops when nobody reads. `checkpoints list --all` and `events --all` in table mode
// (a terminal through a pager, or TSV into a pipe) show each page as it arrives, and ask for no more
// once the reader has gone: a pager that quit, `| head`. Before, table mode fetched every page first.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { hasScript, startTerminal } from '../helpers/pty.js';
import { aipEnv, BIN } from '../helpers/spawn.js';

const t = useEmulator();
const PAGES = 60;

let model: string;
beforeEach(async () => {
  model = (
    await t.run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  await t.emu.control('POST', `/models/${model}/checkpoints`, { count: PAGES });
  await t.emu.control('DELETE', '/requests');
  // After two pages, each page stalls for 5 s: aip cannot fetch all 60 pages (5 minutes) before its
  // reader has gone, however slow the machine, and waits at most for the one in flight when it has.
  await t.emu.fault({
    path: `/training/v1/preview/models/${model}/checkpoints`,
    skip: 2,
    delay_ms: 5000,
    times: 100,
  });
});

async function pagesAsked(): Promise<number> {
  return (await t.emu.requests({ method: 'GET', path: `/training/v1/preview/models/${model}/checkpoints` }))
    .length;
}

describe.runIf(hasScript)('a table through a pager', () => {
  it('checkpoints list --all: once the pager has quit, no more pages are asked for', async () => {
    const quitter = join(t.dir, 'quit.cjs');
    // Reads the first page of the table, then quits, as a person pressing q does.
    writeFileSync(quitter, "process.stdin.once('data', () => process.exit(0));");
    const term = startTerminal(['checkpoints', 'list', model, '--all', '--limit', '1'], {
      ...t.env,
      AIP_PAGER: `'${process.execPath}' '${quitter}'`,
    });
    try {
      expect(await term.exited).toBe(0);
      expect(term.screen()).not.toMatch(/error|EPIPE/i);
      expect(await pagesAsked()).toBeLessThan(PAGES);
    } finally {
      term.kill();
    }
  });
});

describe('TSV into a pipe', () => {
  it('checkpoints list --all | head -1: the pages stop when the reader closes the pipe', async () => {
    const child = spawn(process.execPath, [BIN, 'checkpoints', 'list', model, '--all', '--limit', '1'], {
      env: aipEnv(t.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), patience(120_000));
    // The first line, then the reader goes away, as `head -1` does.
    const first = await new Promise<string>((resolve) =>
      child.stdout.once('data', (d) => resolve(String(d))),
    );
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(killer);
    expect(first).toMatch(/^\d+\t/);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/error|EPIPE/i);
    expect(await pagesAsked()).toBeLessThan(PAGES);
  });
});
