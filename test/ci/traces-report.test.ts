// aip traces send in a simulated GitHub Actions step (runner.ts), on the emulator: beside its two
// outputs, a step summary of the counts (spans, batches, sent, accepted, rejected), the platform's
// words about rejected spans as text (a few, each once), written also when the send fails (exit 1),
// and nothing off a runner.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { markdownText } from '../../src/ci/markdown.js';
import { useEmulator } from '../helpers/emulator.js';
import { type Runner, simulatedRunner, stepOutputs, stepSummary } from './runner.js';

const t = useEmulator();
const { emu, run } = t;
const INGEST = '/trace/agents/otel/v1/traces';

let runner: Runner;
let spans: string;
beforeEach(async () => {
  runner = simulatedRunner();
  spans = join(t.dir, 'spans.jsonl');
  expect((await run(['traces', 'generate', '--spans', '30', '-o', spans])).code).toBe(0);
});

const outputs = () => stepOutputs(runner);
const summary = () => stepSummary(runner);

describe('traces send on GitHub Actions', () => {
  it('a summary of the counts beside spans-accepted and spans-rejected', async () => {
    const r = await run(['traces', 'send', spans, '--batch-spans', '10'], { env: runner.env });
    expect(r.code, r.stderr).toBe(0);
    expect(outputs()).toEqual({ 'spans-accepted': '30', 'spans-rejected': '0' });
    expect(summary()).toBe(
      [
        '### Traces: 30 spans sent',
        '',
        '|  |  |',
        '| --- | --- |',
        `| **File** | ${markdownText(spans)} (OTLP/JSON) |`,
        '| **Spans** | 30 in 3 batches |',
        '| **Sent** | 30 in 3 batches |',
        '| **Accepted** | 30 |',
        '| **Rejected** | 0 |',
        '',
      ].join('\n'),
    );
  });

  it('spans rejected (exit 1): the counts, and the platform’s words as text', async () => {
    await emu.fault({
      path: INGEST,
      status: 200,
      body: { accepted_spans: 7, rejected_spans: 3, error_message: '<img src=x> span **too old**' },
      times: 1,
    });
    const r = await run(['traces', 'send', spans], { env: runner.env });
    expect(r.code).toBe(1);
    expect(outputs()).toEqual({ 'spans-accepted': '7', 'spans-rejected': '3' });
    const text = summary();
    expect(text).toMatch(/^### Traces: 3 spans rejected\n/);
    expect(text).toContain('| **Accepted** | 7 |\n| **Rejected** | 3 |\n');
    expect(text).toContain(
      '#### What the platform said of rejected spans\n\n- &lt;img src=x&gt; span \\*\\*too old\\*\\*\n',
    );
  });

  it('a batch that fails for good: which one, and the error as text', async () => {
    await emu.fault({ path: INGEST, status: 400, body: { detail: '<b>malformed</b> batch' }, times: 1 });
    const r = await run(['traces', 'send', spans], { env: runner.env });
    expect(r.code).not.toBe(0);
    expect(outputs()).toEqual({ 'spans-accepted': '0', 'spans-rejected': '0' });
    const text = summary();
    expect(text).toMatch(/^### Traces: batch 1 of 1 failed\n/);
    expect(text).toContain('| **Sent** | 0 in 0 batches |\n');
    expect(text).toMatch(/\nBatch 1 failed: .*&lt;b&gt;malformed&lt;\/b&gt; batch/);
  });

  it('writes nothing off a runner', async () => {
    const { GITHUB_ACTIONS: _, ...off } = runner.env;
    expect((await run(['traces', 'send', spans], { env: off })).code).toBe(0);
    expect([readFileSync(runner.outputFile, 'utf8'), summary()]).toEqual(['', '']);
  });
});
