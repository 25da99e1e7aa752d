// Following a job to its end, for `jobs wait` and `jobs create --wait`. On a terminal: a status line
// with a progress bar (k of num_sequences) and reward/loss sparklines, redrawn as events come and
// every second; in CI or piped: one plain line per event. Exit: 0 succeeded, 5 failed, 7 --timeout
// reached, 130 Ctrl-C (the job keeps running, and the command that resumes is printed).

import { type Context, DEFAULT_TIMEOUT_SECONDS } from '../context.js';
import { InterruptedError, JobFailedError, WaitTimeoutError } from '../errors/errors.js';
import { formatNumber } from '../output/numbers.js';
import { sparkline } from '../output/plot.js';
import { bar, progress } from '../output/progress.js';
import { type FollowEnd, followEvents } from './follow.js';
import { applyEvent, describeState, eventLine, initialState, type JobState } from './state.js';

export const DEFAULT_INTERVAL_SECONDS = 1;

/** The state as --json prints it. */
export function stateJson(id: string, state: JobState) {
  return {
    id,
    status: state.status,
    step: state.step,
    num_sequences: state.total ?? null,
    error_message: state.error_message ?? null,
    latest_metrics: state.latest ?? null,
  };
}

/** "reward ▁▃▅▆ 0.61  loss ▇▅▃▂ 0.40" */
function trends(state: JobState, width: number): string {
  const series: Array<[string, number[]]> = [
    ['reward', state.rewards],
    ['loss', state.losses],
  ];
  return series
    .filter(([, values]) => values.length > 0)
    .map(([name, values]) => `${name} ${sparkline(values, width)} ${formatNumber(values.at(-1)!)}`)
    .join('  ');
}

function statusLine(state: JobState, seconds: number, columns: number): string {
  const total = state.total ?? 0;
  const counter = state.total === undefined ? 'queued' : `${bar(state.step, total)} ${state.step}/${total}`;
  const line = `Training ${counter}  ${trends(state, 12)}  (${Math.floor(seconds)}s)`.replace(/ {3,}/g, '  ');
  // Wider than the terminal, a redrawn line would wrap and no longer be erased: cut it.
  return line.length < columns ? line : `${line.slice(0, Math.max(10, columns - 2))}…`;
}

export async function watchJob(
  ctx: Context,
  jobId: string,
  options: { intervalSeconds?: number },
): Promise<void> {
  const { io } = ctx;
  const show = progress(io);
  const state = initialState();
  const started = Date.now();
  const timeout = ctx.globals.timeout;
  const redraw = () => show.status(statusLine(state, (Date.now() - started) / 1000, io.stderrColumns));
  const ticker = io.spinnersEnabled ? setInterval(redraw, 1000) : undefined;
  const { signal, release } = ctx.interruptible();
  let end: FollowEnd;
  try {
    redraw();
    ({ end } = await followEvents(ctx.training(), jobId, {
      intervalMs: (options.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS) * 1000,
      deadline: timeout === undefined ? undefined : started + timeout * 1000,
      signal,
      requestTimeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
      sleep: ctx.deps.sleep,
      onEvent: (event) => {
        applyEvent(state, event);
        // On a terminal the status line shows the steps; other events (and everything elsewhere) get a line.
        if (event.type !== 'gradient_step' || !io.spinnersEnabled) show.line(eventLine(event, state));
        redraw();
      },
      onTrouble: (message) => show.line(`${io.errStyle.yellow('warning:')} ${message}`),
    }));
  } finally {
    if (ticker) clearInterval(ticker);
    show.done();
    release();
  }
  if (io.spinnersEnabled && state.step > 0) io.info(`  ${trends(state, 40)}`);
  if (ctx.json) io.json(stateJson(jobId, state));
  const resume = ctx.commandLine(['jobs', 'wait', jobId]);
  switch (end.kind) {
    case 'interrupted':
      io.err(`Stopped watching at ${describeState(state)}; the job keeps running. Resume with: ${resume}`);
      throw new InterruptedError();
    case 'timeout':
      throw new WaitTimeoutError(
        `the job is still ${describeState(state)} after the --timeout of ${timeout}s; it keeps running (${resume})`,
      );
    case 'already-ended':
    case 'terminal':
      if (state.status === 'failed') throw new JobFailedError(`job ${jobId} ${describeState(state)}`);
  }
}
