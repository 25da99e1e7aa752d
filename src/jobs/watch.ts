// Following a job to its end, for `jobs wait` and `jobs create --wait`. On a terminal: a status line
// with a progress bar (k of num_sequences) and reward/loss sparklines, redrawn as events come and
// every second; in CI or piped: one plain line per event. Exit: 0 succeeded, 5 failed, 7 --timeout
// reached, 8 stalled (no new event within --stall), 130 Ctrl-C (the job keeps running, and the
// command that resumes is printed). --json prints the job (shape.ts) however the wait ends; a job
// that finished is kept as such in the local record; on GitHub Actions, the wait's end is reported
// as step outputs and a summary (ci-report.ts).

import type { JobEvent, JobResponse } from '../api/types.js';
import { githubActions } from '../ci/github.js';
import { type Context, DEFAULT_TIMEOUT_SECONDS } from '../context.js';
import {
  CliError,
  InterruptedError,
  JobFailedError,
  JobStalledError,
  WaitTimeoutError,
} from '../errors/errors.js';
import { withArgument } from '../lib/shell-word.js';
import { formatNumber } from '../output/numbers.js';
import { sparkline } from '../output/plot.js';
import { bar, progress } from '../output/progress.js';
import { formatDuration } from '../output/time.js';
import { reportWait, type WaitEnd } from './ci-report.js';
import { type FollowEnd, followEvents } from './follow.js';
import { keepFinal } from './keep-final.js';
import type { RememberedJob } from './local-record.js';
import { aboutJob, type JobProgress, jobJson, progressOf } from './shape.js';
import { applyEvent, describeState, eventLine, initialState, type JobState } from './state.js';

export const DEFAULT_INTERVAL_SECONDS = 1;

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

/** The status line while watching (progress() cuts it to the terminal's width). */
function statusLine(state: JobState, seconds: number): string {
  const total = state.total ?? 0;
  const counter = state.total === undefined ? 'queued' : `${bar(state.step, total)} ${state.step}/${total}`;
  return `Training ${counter}  ${trends(state, 12)}  (${Math.floor(seconds)}s)`.replace(/ {3,}/g, '  ');
}

export interface WatchOptions {
  intervalSeconds?: number;
  /** --stall: no new event for this long ends the wait (exit 8); `text` as given, for the resume hint. */
  stall?: { text: string; ms: number };
  /** The command line as given (after `aip`): on GitHub Actions, the command that reproduces the step. */
  argv?: readonly string[];
  /**
   * The wait is a step of a longer command (train rl): that command prints its own result (no --json
   * of the job, no GitHub Actions outputs per job), and `resume` is the command that carries it on.
   */
  within?: { resume: string };
}

/** "no event yet", or the last event in a few words with its id (the cursor to look from). */
function lastEventText(event: JobEvent | undefined, state: JobState): string {
  return event ? `last event: ${eventLine(event, state)} (id ${event.id})` : 'no event yet';
}

/**
 * The job as the server describes it, when this machine does not remember it or its training times
 * are wanted; a failure costs only those fields (null), with a warning.
 */
async function readServerJob(ctx: Context, id: string): Promise<JobResponse | undefined> {
  try {
    return await ctx.training().getJob(id);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    ctx.io.warn(
      `could not read the job itself (${error.message}); its kind, model and creation time are unknown`,
    );
    return undefined;
  }
}

/** Follows the job to its end; how far it got, when it succeeded (any other end throws). */
export async function watchJob(
  ctx: Context,
  job: { id: string; entry: RememberedJob | undefined },
  options: WatchOptions,
): Promise<JobProgress> {
  const { io } = ctx;
  const jobId = job.id;
  const show = progress(io);
  const state = initialState();
  let lastEvent: JobEvent | undefined;
  const started = Date.now();
  const timeout = ctx.globals.timeout;
  const redraw = () => show.status(statusLine(state, (Date.now() - started) / 1000));
  const ticker = io.spinnersEnabled ? setInterval(redraw, 1000) : undefined;
  const { signal, release } = ctx.interruptible();
  let end: FollowEnd;
  try {
    redraw();
    ({ end } = await followEvents(ctx.training(), jobId, {
      intervalMs: (options.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS) * 1000,
      deadline: timeout === undefined ? undefined : started + timeout * 1000,
      stallMs: options.stall?.ms,
      signal,
      requestTimeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
      sleep: ctx.deps.sleep,
      onEvent: (event) => {
        applyEvent(state, event);
        lastEvent = event;
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
  const waitedMs = Date.now() - started;
  if (io.spinnersEnabled && state.step > 0) io.info(`  ${trends(state, 40)}`);
  const progressNow = progressOf(state);
  await keepFinal(ctx, jobId, progressNow);

  const resumeArgs = options.stall ? ['--stall', options.stall.text] : [];
  const resume = options.within?.resume ?? ctx.commandLine(withArgument(['jobs', 'wait'], jobId, resumeArgs));
  let failure: CliError | undefined;
  let ending: WaitEnd | undefined;
  switch (end.kind) {
    case 'interrupted':
      break;
    case 'timeout':
      ending = 'timed-out';
      failure = new WaitTimeoutError(
        `the job is still ${describeState(state)} after the --timeout of ${timeout}s; it keeps running (${resume})`,
      );
      break;
    case 'stalled':
      ending = 'stalled';
      failure = new JobStalledError(
        `no new event for ${formatDuration(options.stall!.ms)} (--stall): the job is still ${describeState(state)}, ${lastEventText(lastEvent, state)}; it keeps running. Resume with: ${resume}`,
      );
      break;
    case 'already-ended':
    case 'terminal':
      ending = state.status === 'failed' ? 'failed' : 'succeeded';
      if (state.status === 'failed') failure = new JobFailedError(`job ${jobId} ${describeState(state)}`);
  }

  const gha = ending === undefined || options.within ? undefined : githubActions(ctx);
  // The server is asked about the job only when something printed needs it: a job not remembered here
  // (its kind, model and creation time), or a step summary (its training times).
  // Not after Ctrl-C, nor past the --timeout, unless for the summary that a run is waiting for.
  const stopped = end.kind === 'interrupted' || end.kind === 'timeout';
  const printJson = ctx.json && !options.within;
  const server = gha || (printJson && !job.entry && !stopped) ? await readServerJob(ctx, jobId) : undefined;
  const about = aboutJob(ctx, job.entry, server);
  if (printJson) io.json(jobJson(jobId, about, progressNow));
  if (gha && ending) {
    await reportWait(ctx, gha, {
      id: jobId,
      about,
      state,
      progress: progressNow,
      end: ending,
      server,
      waitedMs,
      reason: failure && ending !== 'failed' ? failure.message : undefined,
      argv: options.argv,
    });
  }
  if (end.kind === 'interrupted') {
    io.err(`Stopped watching at ${describeState(state)}; the job keeps running. Resume with: ${resume}`);
    throw new InterruptedError();
  }
  if (failure) throw failure;
  return progressNow;
}
