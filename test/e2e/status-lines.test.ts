// Status lines on a narrow terminal (issue 19): a status line redrawn in place must fit one row, or
// the rows it wraps onto stay on the screen, one per redraw. On a real pseudo-terminal, 40 columns
// wide, every status line aip draws (after its "\r\e[2K") is at most 39 characters.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitLine } from '../../src/output/progress.js';
import { useEmulator } from '../helpers/emulator.js';
import { hasScript, startTerminal } from '../helpers/pty.js';

const t = useEmulator();

/**
 * The status lines in what was written: what is drawn after a clear and left without a newline (the
 * next clear redraws it). Text that ends in a newline stays on the screen, and may wrap.
 */
function statusLines(raw: string): string[] {
  return raw
    .split('\r\u001b[2K')
    .slice(1)
    .map((part) => part.split('\n').at(-1)!)
    .filter((line) => line !== '');
}

describe('status lines', () => {
  it('are cut to the width, by characters, with an ellipsis', () => {
    expect(fitLine('short', 40)).toBe('short');
    expect(fitLine('x'.repeat(39), 40)).toBe('x'.repeat(39));
    expect(fitLine('x'.repeat(40), 40)).toBe(`${'x'.repeat(38)}…`);
    expect(Array.from(fitLine('🚀'.repeat(50), 40))).toHaveLength(39);
  });

  it.runIf(hasScript)(
    'fit a 40-column terminal while traces send reads a file with a long name',
    async () => {
      const file = join(t.dir, `${'a-rather-long-directory-name-'.repeat(3)}spans.jsonl`);
      const span = { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'x' };
      writeFileSync(file, `${JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] })}\n`);
      const term = startTerminal(['traces', 'send', file, '--dry-run', '--project', 'team/lines'], t.env, {
        columns: 40,
      });
      try {
        expect(await term.exited).toBe(0);
        const lines = statusLines(term.raw());
        expect(lines.length).toBeGreaterThan(0);
        for (const line of lines) expect(Array.from(line).length, line).toBeLessThan(40);
        expect(lines[0]).toMatch(/^Reading .*…$/);
      } finally {
        term.kill();
      }
    },
  );

  it.runIf(hasScript)(
    'rollouts draw a bar with groups, rate and mean reward on a 60-column terminal, each line fitting it',
    async () => {
      await t.run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
      await t.emu.control('POST', '/chat', { unstreamed_token_ms: 2 });
      try {
        const tasks = join(t.dir, 'tasks.jsonl');
        writeFileSync(
          tasks,
          Array.from({ length: 6 }, (_, i) =>
            JSON.stringify({ messages: [{ role: 'user', content: `Story ${i}?` }], reference: 'Story' }),
          ).join('\n'),
        );
        const out = join(t.dir, 'groups.jsonl');
        const term = startTerminal(
          [
            'rollouts',
            '--model',
            'agent',
            '--tasks',
            tasks,
            '--reward',
            'contains',
            '-K',
            '2',
            '--concurrency',
            '1',
            '-o',
            out,
          ],
          t.env,
          { columns: 60 },
        );
        try {
          expect(await term.exited).toBe(0);
          const lines = statusLines(term.raw());
          expect(lines.length).toBeGreaterThan(1);
          for (const line of lines) expect(Array.from(line).length, line).toBeLessThan(60);
          // Groups done, the mean reward so far and the rate, as the run goes.
          expect(
            lines.some((line) => /^█+░* [1-5]\/6 · reward 1\.00 · [\d.]+\/s$/.test(line)),
            lines.join('\n'),
          ).toBe(true);
          expect(term.screen()).toMatch(
            /Wrote 6 groups \(12 trajectories\) to .*groups\.jsonl: [\d.]+ rollouts\/s, mean reward 1\.000/,
          );
        } finally {
          term.kill();
        }
      } finally {
        await t.emu.control('POST', '/chat', { unstreamed_token_ms: 0 });
      }
    },
  );
});
