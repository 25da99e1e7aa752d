// `jobs list --all-profiles`: every job this machine created, whichever profile made it. The jobs of
// the current profile's base URL are asked about as `jobs list` asks; a job of another base URL is
// asked through the profile it was made from (the history says which), with that profile's own key,
// and only when that profile still points at that base URL: a key is only ever sent to the URL of the
// profile it belongs to. Otherwise the job shows its kept final state, or `unknown`.
//
// The jobs come from jobs.json (every base URL) and from the history's `created` rows not in it (a job
// forgotten, or made with another config directory).

import type { JobKind } from '../api/types.js';
import { Context } from '../context.js';
import type { CliError } from '../errors/errors.js';
import type { CreatedRow } from '../history/query.js';
import type { HistoryRecorder } from '../history/recorder.js';
import type { Env } from '../settings/global-options.js';
import { type ListedJob, listStates } from './list-states.js';
import { finalOf, type RememberedJob } from './local-record.js';
import { JUST_CREATED } from './shape.js';

export interface ProfileJob extends ListedJob {
  /** The profile that created it, from the history; undefined when the history does not say. */
  profile: string | undefined;
}

/**
 * What a profile resolves from the environment rather than from its own stored settings: the key and
 * the URLs given for this invocation (AIP_API_KEY, AIP_BASE_URL…) and the platform's WANDB_API_KEY.
 * They are the current profile's; another profile is resolved without them.
 */
const INVOCATION_ONLY = [
  'AIP_API_KEY',
  'WANDB_API_KEY',
  'AIP_PROFILE',
  'AIP_BASE_URL',
  'AIP_INFERENCE_URL',
  'AIP_TRACE_URL',
  'AIP_PROJECT',
];

/** A context of another profile; its requests belong to this command's history all the same. */
class ProfileContext extends Context {
  constructor(
    private readonly parent: Context,
    profile: string,
  ) {
    const env: Env = Object.fromEntries(
      Object.entries(parent.env).filter(([name]) => !INVOCATION_ONLY.includes(name)),
    );
    super({ ...parent.deps, env });
    this.globals = {
      ...parent.globals,
      profile,
      baseUrl: undefined,
      inferenceUrl: undefined,
      traceUrl: undefined,
      project: undefined,
    };
    this.argv = parent.argv;
    this.commandPath = parent.commandPath;
  }

  override get history(): HistoryRecorder {
    return this.parent.history;
  }
}

/**
 * The context to ask about jobs of `baseUrl` through `profile`: only when the profile exists, points
 * at that very base URL, and has a key of its own. undefined otherwise (nothing is asked).
 */
export function profileContext(ctx: Context, profile: string, baseUrl: string): Context | undefined {
  try {
    const other = new ProfileContext(ctx, profile);
    if (other.serviceUrl('training') !== baseUrl) return undefined;
    return other.settings.apiKey() ? other : undefined;
  } catch {
    // A profile that no longer exists, or whose settings no longer read: nothing to ask it with.
    return undefined;
  }
}

/** A job the history knows but jobs.json does not, as an entry of it. */
function entryOfCreated(row: CreatedRow): RememberedJob {
  const model = row.name ?? '-';
  return {
    id: row.object_id,
    kind: (row.kind ?? 'rl') as JobKind,
    model_id: model,
    model,
    base_url: row.base_url,
    created_at: row.at,
  };
}

/** jobs.json's entries and the history's other jobs, oldest first, each with its profile. */
export function allJobs(
  recorded: readonly RememberedJob[],
  created: readonly CreatedRow[],
): Array<{ entry: RememberedJob; profile: string | undefined }> {
  const profileOf = new Map<string, string>();
  for (const row of created) profileOf.set(`${row.base_url}\u0000${row.object_id}`, row.profile);
  const key = (job: { base_url: string; id: string }) => `${job.base_url}\u0000${job.id}`;
  const known = new Set(recorded.map(key));
  const fromHistory = created.filter((row) => !known.has(`${row.base_url}\u0000${row.object_id}`));
  const all = [
    ...recorded.map((entry) => ({ entry, profile: profileOf.get(key(entry)) })),
    ...fromHistory.map((row) => ({ entry: entryOfCreated(row), profile: row.profile || undefined })),
  ];
  return all.sort((a, b) =>
    a.entry.created_at < b.entry.created_at ? -1 : a.entry.created_at > b.entry.created_at ? 1 : 0,
  );
}

const KEPT_OR_UNKNOWN = (entry: RememberedJob) =>
  finalOf(entry) ?? { ...JUST_CREATED, state: 'unknown' as const };

/**
 * The state of each job: those of the current base URL through `ctx`; the others through the profile
 * that made them, grouped by base URL and profile; the rest as kept or unknown. `trouble` is the first
 * reason a state could not be read from a server that was asked.
 */
export async function listAllStates(
  ctx: Context,
  jobs: ReadonlyArray<{ entry: RememberedJob; profile: string | undefined }>,
): Promise<{ jobs: ProfileJob[]; trouble: CliError | undefined }> {
  const current = ctx.serviceUrl('training');
  const groups = new Map<string, { ask: Context | undefined; items: ProfileJob[] }>();
  const out: ProfileJob[] = jobs.map(({ entry, profile }) => {
    const job: ProfileJob = { entry, profile, progress: KEPT_OR_UNKNOWN(entry) };
    // The current profile asks about its own jobs, and those no history names a profile for; a job
    // another profile made on the same URL is asked with that profile's key (another account's job
    // asked with this one's would read as gone, and be kept so).
    const onCurrent =
      entry.base_url === current && (profile === undefined || profile === ctx.settings.profile);
    const id = onCurrent ? '\u0000current' : `${entry.base_url}\u0000${profile ?? ''}`;
    let group = groups.get(id);
    if (!group) {
      const ask = onCurrent ? ctx : profile ? profileContext(ctx, profile, entry.base_url) : undefined;
      group = { ask, items: [] };
      groups.set(id, group);
    }
    group.items.push(job);
    return job;
  });
  let trouble: CliError | undefined;
  for (const { ask, items } of groups.values()) {
    if (!ask) continue;
    const listed = await listStates(
      ask,
      items.map((j) => j.entry),
    );
    listed.jobs.forEach((l, i) => {
      items[i]!.progress = l.progress;
    });
    trouble ??= listed.trouble;
  }
  return { jobs: out, trouble };
}
