// Following a job to its end, for `jobs wait` and `jobs create --wait`. On a terminal: a progress
// bar (k of num_sequences) with the latest reward and loss; in CI or piped: one plain line per event.
// Exit: 0 succeeded, 5 failed, 7 --timeout reached, 130 Ctrl-C (the job keeps running).

import { type Context, DEFAULT_TIMEOUT_SECONDS } from '../../context.js';
import { InterruptedError, JobFailedError, WaitTimeoutError } from '../../errors.js';
import { followEvents } from '../../jobs/follow.js';
import {
  applyEvent,
  describeState,
  eventLine,
  initialState,
  type JobState,
  stepSummary,
} from '../../jobs/state.js';
import { bar, progress } from '../../output/progress.js';

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

function statusLine(state: JobState, seconds: number): string {
  const total = state.total ?? 0;
  const metrics = stepSummary(state.latest).replaceAll('=', ' ');
  const counter = state.total === undefined ? 'starting' : `${bar(state.step, total)} ${state.step}/${total}`;
  return `Training ${counter}${metrics ? `  ${metrics}` : ''}  (${Math.round(seconds)}s)`;
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
  const { signal, release } = ctx.interruptible();
  let outcome: Awaited<ReturnType<typeof followEvents>>;
  try {
    show.status(statusLine(state, 0));
    outcome = await followEvents(ctx.training(), jobId, {
      intervalMs: (options.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS) * 1000,
      deadline: timeout === undefined ? undefined : started + timeout * 1000,
      signal,
      requestTimeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
      sleep: ctx.deps.sleep,
      onEvent: (event) => {
        applyEvent(state, event);
        // On a terminal the bar shows the steps; other events (and everything elsewhere) get a line.
        if (event.type !== 'gradient_step' || !io.spinnersEnabled) show.line(eventLine(event, state));
        show.status(statusLine(state, (Date.now() - started) / 1000));
      },
      onTrouble: (message) => show.line(`${io.errStyle.yellow('warning:')} ${message}`),
    });
  } finally {
    show.done();
    release();
  }
  if (ctx.json) io.json(stateJson(jobId, state));
  const resume = `aip jobs wait ${jobId}`;
  switch (outcome.end.kind) {
    case 'interrupted':
      io.err(`Stopped watching at ${describeState(state)}; the job keeps running. Resume with: ${resume}`);
      throw new InterruptedError();
    case 'timeout':
      throw new WaitTimeoutError(
        `the job is still ${describeState(state)} after the --timeout of ${timeout}s; it keeps running (${resume})`,
      );
    case 'terminal':
      if (state.status === 'failed') throw new JobFailedError(`job ${jobId} ${describeState(state)}`);
  }
}
