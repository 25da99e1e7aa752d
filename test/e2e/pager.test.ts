// The pager (issue 19): long output on a terminal goes through AIP_PAGER / PAGER / `less -FRX`, never
// when piped, in CI or with --no-pager. On a real pseudo-terminal, with a stand-in pager that records
// what it was given, and with less itself where it is installed.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { finishedJob } from '../helpers/jobs.js';
import { patience } from '../helpers/patience.js';
import { hasScript, startTerminal } from '../helpers/pty.js';
import { aipEnv, BIN, collect } from '../helpers/spawn.js';

const t = useEmulator();
const hasLess = spawnSync('sh', ['-c', 'command -v less']).status === 0;
/** less asks for Enter on a terminal it does not know (no TERM), as it would for a person. */
const TERMINAL = { TERM: 'xterm' };

/** A pager that reads everything, records it with its LESS variable, and says so on the terminal. */
const RECORDING_PAGER = `const fs = require('node:fs');
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { text += d; }).on('end', () => {
  fs.writeFileSync(process.env.PAGER_LOG, JSON.stringify({ text, less: process.env.LESS, args: process.argv.slice(2) }));
  process.stdout.write('PAGED ' + text.split('\\n').length + ' lines\\n');
});
`;

let log: string;
let pagerEnv: Record<string, string>;
let job: string;
beforeEach(async () => {
  const script = join(t.dir, 'pager.cjs');
  writeFileSync(script, RECORDING_PAGER);
  log = join(t.dir, 'pager.json');
  pagerEnv = { ...t.env, AIP_PAGER: `'${process.execPath}' '${script}' --from-aip`, PAGER_LOG: log };
  job = await finishedJob(t, 60);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stillRunning(exited: Promise<unknown>): Promise<boolean> {
  return Promise.race([exited.then(() => false), pause(50).then(() => true)]);
}

function paged(): { text: string; less: string; args: string[] } {
  return JSON.parse(readFileSync(log, 'utf8'));
}

describe.runIf(hasScript)('the pager', () => {
  it('takes the whole list on a terminal, with LESS=FRX, and what aip says on stderr comes after it', async () => {
    const term = startTerminal(['events', job, '--limit', '40'], pagerEnv);
    try {
      expect(await term.exited).toBe(0);
      const { text, less, args } = paged();
      expect(args).toEqual(['--from-aip']);
      expect(less).toBe('FRX');
      expect(text.split('\n').filter(Boolean)).toHaveLength(41); // header and 40 events
      expect(text).toContain('gradient_step');
      const screen = term.screen();
      // The table went to the pager, not to the terminal; the hint was held until the pager quit.
      expect(screen).not.toContain('gradient_step');
      expect(screen.indexOf('PAGED 42 lines')).toBeGreaterThanOrEqual(0);
      expect(screen.indexOf('More events:')).toBeGreaterThan(screen.indexOf('PAGED'));
    } finally {
      term.kill();
    }
  });

  it('is not used with --no-pager, in CI, or for AIP_PAGER=cat', async () => {
    for (const [args, extra] of [
      [['--no-pager'], {}],
      [[], { CI: 'true' }],
      [[], { AIP_PAGER: 'cat' }],
    ] as const) {
      const term = startTerminal(['events', job, '--all', ...args], { ...pagerEnv, ...extra });
      try {
        expect(await term.exited).toBe(0);
        expect(existsSync(log), `${args} ${JSON.stringify(extra)}`).toBe(false);
        expect(term.screen()).toContain('gradient_step');
      } finally {
        term.kill();
      }
    }
  });

  it('says when the pager asked for is not installed, and prints without it', async () => {
    const term = startTerminal(['models', 'list'], { ...t.env, PAGER: 'no-such-pager -x' });
    try {
      expect(await term.exited).toBe(0);
      const screen = term.screen();
      expect(screen).toContain(
        'warning: the pager "no-such-pager" is not installed (from PAGER): printing without a pager',
      );
      expect(screen).toMatch(/OpenPipe\/Qwen3-14B-Instruct/);
    } finally {
      term.kill();
    }
  });

  it('ends quietly when the pager quits before reading it all, asking for no more pages', async () => {
    const quitter = join(t.dir, 'quit.cjs');
    writeFileSync(quitter, 'process.exit(0)');
    await t.emu.control('DELETE', '/requests');
    // After two pages, each page stalls for 5 s: however slow the pager is to start and quit on a busy
    // machine, aip cannot fetch all 62 pages before it has quit (5 minutes), and waits at most for the
    // one in flight when it does.
    await t.emu.fault({
      path: `/training/v1/preview/training-jobs/${job}/events`,
      skip: 2,
      delay_ms: 5000,
      times: 100,
    });
    const term = startTerminal(['events', job, '--all', '--limit', '1', '--jsonl'], {
      ...t.env,
      AIP_PAGER: `'${process.execPath}' '${quitter}'`,
    });
    try {
      expect(await term.exited).toBe(0);
      expect(term.screen()).not.toMatch(/error|EPIPE/i);
      // 62 events a page each: the pages stopped once there was no one to read them.
      const pages = await t.emu.requests({
        method: 'GET',
        path: `/training/v1/preview/training-jobs/${job}/events`,
      });
      expect(pages.length).toBeLessThan(62);
    } finally {
      term.kill();
    }
  });

  it.runIf(hasLess)('less -FRX by default: a list longer than the screen waits for q', async () => {
    const term = startTerminal(['events', job, '--all'], { ...t.env, ...TERMINAL });
    try {
      await term.waitFor('gradient_step');
      await pause(300);
      // Only the first screen is drawn: the last event is further down.
      expect(term.screen()).not.toContain('job_succeeded');
      expect(await stillRunning(term.exited)).toBe(true);
      term.type('q');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
  });

  it.runIf(hasLess)(
    'Ctrl-C leaves the terminal to less until it quits, then aip ends as interrupted (130)',
    async () => {
      const term = startTerminal(['events', job, '--all'], { ...t.env, ...TERMINAL });
      try {
        await term.waitFor('gradient_step');
        term.type('\u0003');
        await pause(300);
        expect(await stillRunning(term.exited)).toBe(true);
        term.type('q');
        expect(await term.exited).toBe(130);
        expect(term.screen()).toMatch(/interrupted/);
      } finally {
        term.kill();
      }
    },
  );

  it.runIf(hasLess)('less -FRX by default: a short list is printed and less quits by itself', async () => {
    const term = startTerminal(['models', 'list'], { ...t.env, ...TERMINAL });
    try {
      expect(await term.exited).toBe(0);
      expect(term.screen()).toMatch(/OpenPipe\/Qwen3-14B-Instruct/);
    } finally {
      term.kill();
    }
  });

  it('is not used when stdout is a pipe', async () => {
    const child = spawn(process.execPath, [BIN, 'events', job, '--all'], { env: aipEnv(pagerEnv) });
    const r = await collect(child, patience(60_000));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('gradient_step');
    expect(existsSync(log)).toBe(false);
  });
});
