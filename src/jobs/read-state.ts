// A job's state as of all its events, read page by page (for `jobs get` and `jobs list`).

import { allItems } from '../api/pagination.js';
import type { TrainingClient } from '../api/training.js';
import { CliError, InterruptedError } from '../errors/errors.js';
import { applyEvent, initialState, type JobState } from './state.js';

export interface ReadState {
  state: JobState;
  /** Events read. */
  events: number;
  /** Why the rest could not be read; undefined when every event was. */
  trouble: CliError | undefined;
}

/**
 * Every event of the job, applied to its state. A failure part-way is returned, not thrown: what was
 * read of the events still says something (a bug, or Ctrl-C, is thrown).
 */
export async function readJobState(
  training: TrainingClient,
  id: string,
  maxPages: number,
): Promise<ReadState> {
  const state = initialState();
  let events = 0;
  try {
    const pages = allItems((after) => training.listEvents(id, { after, limit: 100 }), undefined, maxPages);
    for await (const event of pages) {
      applyEvent(state, event);
      events++;
    }
    return { state, events, trouble: undefined };
  } catch (error) {
    if (!(error instanceof CliError) || error instanceof InterruptedError) throw error;
    return { state, events, trouble: error };
  }
}
