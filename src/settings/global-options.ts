// The global options of product.md section 2, as commander hands them to every command, and the
// shape of the environment that settings are read from.

export type Env = Readonly<Record<string, string | undefined>>;

export interface GlobalOptions {
  profile?: string;
  project?: string;
  baseUrl?: string;
  inferenceUrl?: string;
  traceUrl?: string;
  json?: boolean;
  /** --jsonl: JSON Lines (a list one item per line); implies JSON output. */
  jsonl?: boolean;
  /** --jq: a jq expression the JSON output is filtered through; implies JSON output. */
  jq?: string;
  quiet?: boolean;
  /** false when --no-color was given. */
  color?: boolean;
  debug?: boolean;
  /** Seconds: per HTTP request; for commands that wait, the overall deadline. */
  timeout?: number;
  maxRetries?: number;
  /** false when --no-input was given. */
  input?: boolean;
  yes?: boolean;
  /** false when --no-pager was given. */
  pager?: boolean;
  /** --ci: which CI's workflow commands to speak; unset: GitHub Actions when GITHUB_ACTIONS=true. */
  ci?: 'github' | 'none';
}
