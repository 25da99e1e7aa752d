// Every failure a command can end with, and the one place where a failure becomes an exit code.
// Commands throw; main() calls exitCodeFor() once. Nothing else decides an exit status.

export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  jobFailed: 5,
  rateLimited: 6,
  waitTimeout: 7,
  jobStalled: 8,
  budgetReached: 9,
  interrupted: 130,
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The documented table (docs/settings.md, `aip help exit-codes`), kept beside the codes it documents. */
export const EXIT_CODE_TABLE: ReadonlyArray<{ code: ExitCodeValue; meaning: string }> = [
  { code: ExitCode.ok, meaning: 'success' },
  {
    code: ExitCode.error,
    meaning:
      'error from the server or the network, after retries; a --jq expression that failed while it ran, or went past its time or memory budget',
  },
  {
    code: ExitCode.usage,
    meaning:
      'bad usage, invalid input or settings (nothing was sent), or input the server refused (400, 422): nothing was created',
  },
  {
    code: ExitCode.notFound,
    meaning: 'not found: an unknown id or name (404, or a name this machine does not know)',
  },
  { code: ExitCode.auth, meaning: 'authentication or permission: no key, 401, 403' },
  { code: ExitCode.jobFailed, meaning: 'the training job failed' },
  {
    code: ExitCode.rateLimited,
    meaning: 'rate limited or quota exhausted (429, 402), after retries, whichever command it ends',
  },
  { code: ExitCode.waitTimeout, meaning: 'a --timeout was reached while waiting' },
  {
    code: ExitCode.jobStalled,
    meaning: 'the job stalled: no new event within --stall while waiting (the job keeps running)',
  },
  {
    code: ExitCode.budgetReached,
    meaning:
      'a budget (--max-cost, --max-total-tokens) was reached: no more requests were sent, what was written is kept, --resume carries on',
  },
  { code: ExitCode.interrupted, meaning: 'interrupted (Ctrl-C)' },
  { code: ExitCode.terminated, meaning: 'terminated (SIGTERM), after stopping cleanly' },
];

/** An error meant for the user: its message is printed as is, on one line. */
export class CliError extends Error {
  override name = 'CliError';
  /** More lines printed under the message (e.g. one per validation problem). */
  details: string[] = [];
  /** What to do about it, appended to the message. */
  hint: string | undefined;
  /**
   * A request that is not safe to repeat (a create) failed after it may have reached the server: its
   * answer was lost, and whether it was done is unknown. The command says how to find out.
   */
  uncertain = false;

  constructor(message: string, options?: { hint?: string; details?: string[]; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options?.hint;
    this.details = options?.details ?? [];
  }
}

/** Bad flags, arguments, settings or input files: nothing was sent. */
export class UsageError extends CliError {
  override name = 'UsageError';
}

/** A missing or unusable API key, found before anything was sent. */
export class AuthError extends CliError {
  override name = 'AuthError';
}

export class NotFoundError extends CliError {
  override name = 'NotFoundError';
}

/** The server answered with an HTTP error status (after any retries). */
export class ApiError extends CliError {
  override name = 'ApiError';
  /** How many times the request was sent (more than 1 when retried). */
  attempts = 1;
  constructor(
    message: string,
    readonly status: number,
    readonly requestId: string | undefined,
    options?: { hint?: string; details?: string[] },
  ) {
    super(message, options);
  }
}

/** No HTTP answer: refused, reset, timed out, DNS (after any retries). */
export class NetworkError extends CliError {
  override name = 'NetworkError';
}

/** A training job ended in `training_failed`. */
export class JobFailedError extends CliError {
  override name = 'JobFailedError';
}

/** A command-level `--timeout` ran out while waiting for something to finish. */
export class WaitTimeoutError extends CliError {
  override name = 'WaitTimeoutError';
}

/**
 * `--stall` ran out: no new event of the job came for that long. Its own code (not 7): a job that
 * stopped moving is not one that is merely slow, and it is what people training here most often meet.
 */
export class JobStalledError extends CliError {
  override name = 'JobStalledError';
}

/**
 * A budget of rollouts, eval or train rl was reached (budget/budget.ts): the requests in flight were
 * answered and kept, no other was sent. Its own code: a script must tell "spent what it was allowed"
 * from a failure.
 */
export class BudgetReachedError extends CliError {
  override name = 'BudgetReachedError';
}

/** Ctrl-C (or SIGTERM: a CI runner cancelling the step): the user asked to stop. */
export class InterruptedError extends CliError {
  override name = 'InterruptedError';
  constructor(
    message?: string,
    readonly signal: 'SIGINT' | 'SIGTERM' = 'SIGINT',
  ) {
    super(message ?? (signal === 'SIGTERM' ? 'terminated' : 'interrupted'));
  }
}

/** A command that ran to the end but must report failure (e.g. a health check that failed). */
export class CommandFailedError extends CliError {
  override name = 'CommandFailedError';
}

/**
 * `aip traces exec`: the command it ran failed, and its exit status is aip's. Nothing more is said:
 * the command has spoken for itself.
 */
export class ChildExitError extends CliError {
  override name = 'ChildExitError';
  constructor(readonly exitCode: number) {
    super(`the command exited with status ${exitCode}`);
  }
}

function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 402 || status === 429) return ExitCode.rateLimited;
  // The server refused the input itself (a bad data URL, a schema error): as bad input found offline.
  if (status === 400 || status === 422) return ExitCode.usage;
  return ExitCode.error;
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof ChildExitError) return error.exitCode;
  if (error instanceof ApiError) return exitCodeForStatus(error.status);
  if (error instanceof UsageError) return ExitCode.usage;
  if (error instanceof AuthError) return ExitCode.auth;
  if (error instanceof NotFoundError) return ExitCode.notFound;
  if (error instanceof JobFailedError) return ExitCode.jobFailed;
  if (error instanceof WaitTimeoutError) return ExitCode.waitTimeout;
  if (error instanceof JobStalledError) return ExitCode.jobStalled;
  if (error instanceof BudgetReachedError) return ExitCode.budgetReached;
  if (error instanceof InterruptedError)
    return error.signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
  return ExitCode.error;
}

/** The hint shown with every authentication failure that does not carry its own. */
export const AUTH_HINT = "run 'aip auth login' or set AIP_API_KEY";
