// What the history journal holds (journal.ts writes it, store.ts folds it into the database): one JSON
// object a line, each naming the invocation it belongs to (`run`, unique on this machine). An
// invocation is recorded only once it talks to the platform: `begin` comes with its first request,
// `end` as it exits. Every string in a line has had the known keys masked before it was written.
//
// Readers take what they know and skip what they do not: a newer aip may add kinds and fields.

export const JOURNAL_FORMAT = 1;

export type HistoryApi = 'training' | 'inference' | 'trace';

/** The invocation: what was asked, of which platform, from where. */
export interface BeginEvent {
  k: 'begin';
  v: typeof JOURNAL_FORMAT;
  run: string;
  /** ISO-8601, when the command started (not when it first talked). */
  at: string;
  pid: number;
  host: string;
  /** The command's path: "jobs create rl", "rollouts". */
  command: string;
  /** The words after `aip`, known keys masked. */
  argv: string[];
  profile: string;
  /** The three interfaces' URLs as this command resolved them. */
  training_url: string;
  inference_url: string;
  trace_url: string;
  project?: string;
  cwd: string;
  version: string;
}

/** What the command works on, as it learns it (a model resolved, a job created, a run's file). */
export interface NoteEvent {
  k: 'note';
  run: string;
  at: string;
  model?: string;
  job?: string;
  /**
   * What `--resume` carries on, when the command has one (a rollouts or eval output file, a train rl
   * run directory, as an absolute path): `aip usage --by run` joins the invocations that share it.
   */
  ref?: string;
}

/** One answer's token usage (a chat completion, a sample, a judge's verdict). */
export interface UsageEvent {
  k: 'usage';
  run: string;
  at: string;
  api: 'training' | 'inference';
  /** The model as the request named it (a wandb-artifact URI on the Training API). */
  model: string;
  /** What the request was for. */
  purpose: 'chat' | 'sample' | 'judge';
  prompt_tokens: number;
  completion_tokens: number;
  /** Choices answered (n > 1 samples several in one request). */
  samples: number;
  /** The job the command was working on when it asked, if any (train rl: the job being trained). */
  job?: string;
}

/** Something the platform created for this command. */
export interface CreatedEvent {
  k: 'created';
  run: string;
  at: string;
  what: 'model' | 'job';
  id: string;
  /** A model's team/project/name; a job's model (team/project/name, or its id). */
  name?: string;
  /** A job's kind (rl, sft). */
  kind?: string;
  /** The Training API it was created on. */
  base_url: string;
  profile: string;
}

/** A request and its answer, whole: only with history bodies on (switch.ts). */
export interface BodyEvent {
  k: 'body';
  run: string;
  at: string;
  api: 'training' | 'inference';
  model: string;
  purpose: UsageEvent['purpose'];
  request: unknown;
  response: unknown;
}

/** How the invocation ended. */
export interface EndEvent {
  k: 'end';
  run: string;
  at: string;
  exit: number;
  /** The one-line message printed for a failure. */
  error?: string;
  duration_ms: number;
}

export type HistoryEvent = BeginEvent | NoteEvent | UsageEvent | CreatedEvent | BodyEvent | EndEvent;
