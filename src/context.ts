// What a command is handed: the IO object, the parsed global options, and lazy getters for settings
// and API clients. Nothing reads the config file or builds a client until a command asks for it.

import { HttpClient } from './api/http.js';
import { type Limits, limitsFrom } from './api/limits.js';
import type { RetryPolicy } from './api/retrying.js';
import { TrainingClient } from './api/training.js';
import {
  type ExchangeLogger,
  exchangeLogger,
  guardKeys,
  logExchanges,
  type Transport,
} from './api/transport.js';
import type { Budget } from './budget/budget.js';
import { AUTH_HINT, AuthError } from './errors/errors.js';
import { historyDir } from './history/paths.js';
import { HistoryRecorder, historyArgv } from './history/recorder.js';
import { shellWord } from './lib/shell-word.js';
import { USER_AGENT, VERSION } from './lib/version.js';
import type { IO } from './output/io.js';
import { configFilePath } from './settings/config-file.js';
import type { Env, GlobalOptions } from './settings/global-options.js';
import { type ResolvedKey, Settings } from './settings/resolve.js';

/** Everything from outside the process that a command may touch; tests replace any of it. */
export interface Deps {
  env: Env;
  io: IO;
  transport: Transport;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Where SIGINT comes from (the process; tests pass their own emitter). */
  signals: NodeJS.EventEmitter;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_MAX_RETRIES = 3;

export type Service = 'training' | 'inference' | 'trace';

export type AuthMode = 'required' | 'optional' | 'none';

export const SERVICE_NAMES: Record<Service, string> = {
  training: 'training API',
  inference: 'inference API',
  trace: 'trace ingest',
};

const SERVICE_URL_KEYS = { training: 'base-url', inference: 'inference-url', trace: 'trace-url' } as const;

export class Context {
  globals: GlobalOptions = {};
  /** The words after `aip` (main), for the history. */
  argv: readonly string[] = [];
  /** The command that runs, as its path ("jobs create rl"), once commander has found it. */
  commandPath = '';
  /** What its command line says to a model (a chat's prompt: commands/content.ts). */
  contentWords: readonly string[] = [];
  /** What rollouts, eval or train rl may still spend (--max-cost, --max-total-tokens), when limited. */
  budget: Budget | undefined;
  /** The signal that stopped a command that was waiting (see interruptible). */
  stopSignal: 'SIGINT' | 'SIGTERM' | undefined;
  private cachedSettings: Settings | undefined;
  private cachedTransport: Transport | undefined;
  private cachedLogger: ExchangeLogger | undefined;
  private cachedLimits: Limits | undefined;
  private cachedHistory: HistoryRecorder | undefined;

  constructor(readonly deps: Deps) {}

  get io(): IO {
    return this.deps.io;
  }

  get env(): Env {
    return this.deps.env;
  }

  get configFile(): string {
    return configFilePath(this.env);
  }

  get settings(): Settings {
    this.cachedSettings ??= new Settings(this.globals, this.env, this.configFile, {
      warn: (message) => this.io.warn(message),
      debug: (message) => {
        if (this.globals.debug) this.io.err(this.io.errStyle.dim(`debug: ${message}`));
      },
      keychain: true,
    });
    return this.cachedSettings;
  }

  /** --json (or --jsonl, --jq, which imply it) wins; otherwise the `output` setting. */
  get json(): boolean {
    const g = this.globals;
    return (
      g.json === true || g.jsonl === true || g.jq !== undefined || this.settings.get('output') === 'json'
    );
  }

  get timeoutMs(): number {
    return (this.globals.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  }

  /** The bounds on answers (api/limits.ts), raised or lowered by AIP_MAX_* variables. */
  get limits(): Limits {
    this.cachedLimits ??= limitsFrom(this.env);
    return this.cachedLimits;
  }

  serviceUrl(service: Service): string {
    return this.settings.get(SERVICE_URL_KEYS[service])!;
  }

  /** The key, or an AuthError (exit 4) saying how to provide one. */
  requireApiKey(): ResolvedKey {
    const resolved = this.settings.apiKey();
    if (!resolved) {
      throw new AuthError(`no API key for profile "${this.settings.profile}"`, { hint: AUTH_HINT });
    }
    return resolved;
  }

  /** With --debug: the log every exchange is written to (aip's own and the openai SDK's). */
  get exchangeLog(): ExchangeLogger | undefined {
    if (!this.globals.debug) return undefined;
    this.cachedLogger ??= exchangeLogger((line) => this.io.err(this.io.errStyle.dim(line)));
    return this.cachedLogger;
  }

  /** What every request goes through: the key guard, and with --debug the exchange log. */
  get transport(): Transport {
    if (!this.cachedTransport) {
      const guarded = guardKeys(this.deps.transport);
      const log = this.exchangeLog;
      const logged = log ? logExchanges(guarded, log) : guarded;
      // The first request begins the command's history (history/recorder.ts).
      this.cachedTransport = (request) => {
        this.history.contacted();
        return logged(request);
      };
    }
    return this.cachedTransport;
  }

  /** This command's history (history/recorder.ts): it begins with the first request. */
  get history(): HistoryRecorder {
    this.cachedHistory ??= new HistoryRecorder({
      env: this.env,
      historyDir: () => historyDir(this.env),
      warn: (message) => this.io.warn(message),
      invocation: (bodies) => {
        // A URL that does not resolve is recorded empty: the command says what is wrong with it.
        const url = (service: Service) => {
          try {
            return this.serviceUrl(service);
          } catch {
            return '';
          }
        };
        return {
          command: this.commandPath,
          argv: historyArgv(this.argv, bodies ? [] : this.contentWords),
          profile: this.settings.profile,
          training_url: url('training'),
          inference_url: url('inference'),
          trace_url: url('trace'),
          ...(this.settings.get('project') ? { project: this.settings.get('project') } : {}),
          cwd: process.cwd(),
          version: VERSION,
        };
      },
    });
    return this.cachedHistory;
  }

  /** How every request is retried, by either client (api/retrying.ts): --max-retries, --timeout. */
  get retryPolicy(): RetryPolicy {
    return {
      maxRetries: this.globals.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeoutMs: this.timeoutMs,
      sleep: this.deps.sleep,
      random: this.deps.random,
      onRetry: (notice) => {
        if (!this.io.quiet) this.io.warn(notice);
      },
    };
  }

  /**
   * A client for one interface. With `auth: 'none'` no key is looked up or sent; with 'optional' the
   * key is sent when there is one; with 'required' it must exist. (The transport's guard keeps any key
   * off plain http to other machines.)
   */
  http(
    service: Service,
    options: {
      auth: AuthMode;
      apiKey?: string;
      baseUrl?: string;
      /** Instead of a warning per retry (a server that says what it does in its own way). */
      onRetry?: (notice: string) => void;
    },
  ): HttpClient {
    const baseUrl = options.baseUrl ?? this.serviceUrl(service);
    const apiKey =
      options.auth === 'none'
        ? undefined
        : (options.apiKey ??
          (options.auth === 'required' ? this.requireApiKey().key : this.settings.apiKey()?.key));
    return new HttpClient({
      service: SERVICE_NAMES[service],
      baseUrl,
      apiKey,
      transport: this.transport,
      ...this.retryPolicy,
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      userAgent: USER_AGENT,
      limits: this.limits,
      // Trace ingest takes the key as HTTP Basic credentials, user "api" (api-contract.md §4.2).
      authHeaders:
        service === 'trace'
          ? (key) => ({ authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}` })
          : undefined,
    });
  }

  /**
   * For output that can run to hundreds of lines (lists, every page of events): on a terminal it goes
   * through a pager (output/pager.ts says which, and when not).
   */
  async pageLongOutput(): Promise<void> {
    const { io } = this;
    if (!io.isStdoutTTY) return;
    // Loaded only here, on a terminal: no start-up of any command pays for the pager's code.
    const [{ choosePager }, { startPager }] = await Promise.all([
      import('./output/pager.js'),
      import('./output/pager-process.js'),
    ]);
    const choice = choosePager(this.env, {
      stdoutIsTTY: io.isStdoutTTY,
      ci: io.isCI,
      noPager: this.globals.pager === false,
    });
    if (choice.pager) io.pageOutput(choice.pager, startPager);
    else if (choice.problem) io.warn(`${choice.problem}: printing without a pager`);
  }

  /**
   * An AbortSignal that fires on Ctrl-C, for commands that wait and must stop cleanly (say how to
   * resume, exit 130) instead of being killed. `release` gives SIGINT back to its default.
   */
  interruptible(options: { orStdoutClosed?: boolean } = {}): { signal: AbortSignal; release: () => void } {
    const controller = new AbortController();
    // SIGTERM too: a CI runner cancelling the step gets the same clean stop (and exit 143).
    const onInterrupt = () => {
      this.stopSignal ??= 'SIGINT';
      controller.abort();
    };
    const onTerminate = () => {
      this.stopSignal = 'SIGTERM';
      controller.abort();
    };
    this.deps.signals.once('SIGINT', onInterrupt);
    this.deps.signals.once('SIGTERM', onTerminate);
    const stopListening = options.orStdoutClosed
      ? this.io.onStdoutClosed(() => controller.abort())
      : undefined;
    return {
      signal: controller.signal,
      release: () => {
        this.deps.signals.off('SIGINT', onInterrupt);
        this.deps.signals.off('SIGTERM', onTerminate);
        stopListening?.();
      },
    };
  }

  /**
   * The aip command line that repeats `args` with the same profile and URLs (given as flags), for
   * "resume with: …" hints that must work when pasted.
   */
  commandLine(args: readonly string[]): string {
    const g = this.globals;
    const flags: string[] = [];
    if (g.profile) flags.push('--profile', g.profile);
    if (g.baseUrl) flags.push('--base-url', g.baseUrl);
    return ['aip', ...flags, ...args].map(shellWord).join(' ');
  }

  training(options: { auth: AuthMode } = { auth: 'required' }): TrainingClient {
    return new TrainingClient(this.http('training', options));
  }
}
