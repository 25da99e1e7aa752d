// A job's state, derived from its events as the platform's own SDK does (the API publishes no status):
// no events yet → queued; training_started → running (of num_sequences steps); training_ended →
// succeeded; training_failed → failed, with its message.

import type { JobEvent } from '../api/types.js';
import { formatNumber } from '../output/numbers.js';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface JobState {
  status: JobStatus;
  /** Gradient steps seen. */
  step: number;
  /** num_sequences of training_started: the steps to expect. */
  total: number | undefined;
  error_message: string | undefined;
  /** The data of the latest gradient_step. */
  latest: Record<string, unknown> | undefined;
  rewards: number[];
  losses: number[];
}

export const TERMINAL_EVENTS = new Set(['training_ended', 'training_failed']);

export function initialState(): JobState {
  return {
    status: 'queued',
    step: 0,
    total: undefined,
    error_message: undefined,
    latest: undefined,
    rewards: [],
    losses: [],
  };
}

export function applyEvent(state: JobState, event: JobEvent): JobState {
  const data = event.data ?? {};
  switch (event.type) {
    case 'training_started':
      state.status = 'running';
      // A count, or nothing: a server's value that is not one is not shown as a total.
      if (Number.isInteger(data.num_sequences) && (data.num_sequences as number) >= 0)
        state.total = data.num_sequences as number;
      break;
    case 'gradient_step':
      state.status = 'running';
      state.step++;
      state.latest = data;
      if (typeof data.reward === 'number') state.rewards.push(data.reward);
      if (typeof data.loss === 'number') state.losses.push(data.loss);
      break;
    case 'training_ended':
      state.status = 'succeeded';
      break;
    case 'training_failed':
      state.status = 'failed';
      // The SDK's words when the server gives none.
      state.error_message =
        typeof data.error_message === 'string' ? data.error_message : 'Training failed with an unknown error';
      break;
  }
  return state;
}

/** "queued", "running 3/10", "succeeded", "failed at step 4: message" */
export function describeState(state: JobState): string {
  switch (state.status) {
    case 'queued':
      return 'queued';
    case 'running':
      return `running ${state.step}/${state.total ?? '?'}`;
    case 'succeeded':
      return `succeeded after ${state.step} step${state.step === 1 ? '' : 's'}`;
    case 'failed':
      return `failed at step ${state.step + 1}: ${state.error_message}`;
  }
}

/** The headline metrics of a gradient step: "reward=0.53 loss=0.21". */
export function stepSummary(data: Record<string, unknown> | undefined): string {
  if (!data) return '';
  return ['reward', 'loss']
    .filter((k) => typeof data[k] === 'number')
    .map((k) => `${k}=${formatNumber(data[k] as number)}`)
    .join(' ');
}

/** One line for one event, as `jobs wait` prints them when not on a terminal. */
export function eventLine(event: JobEvent, state: JobState): string {
  switch (event.type) {
    case 'training_started':
      return `started: ${state.total ?? '?'} steps`;
    case 'gradient_step':
      return `step ${state.step}/${state.total ?? '?'}${state.latest ? `  ${stepSummary(state.latest)}` : ''}`.trimEnd();
    case 'training_ended':
      return `succeeded after ${state.step} steps`;
    case 'training_failed':
      return `failed at step ${state.step + 1}: ${state.error_message}`;
    default:
      return `${event.type} ${JSON.stringify(event.data)}`;
  }
}
