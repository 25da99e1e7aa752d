// The values completion offers from what is on this machine: profile names, and the models and jobs
// created from here. Read only: the config file and the local records, never the network, and never a
// warning (the Settings here are given no one to warn: a TAB is no place to say the config file's
// permissions are wrong; the command the user then runs says it).

import { finalOf, readJobRecord } from '../../jobs/local-record.js';
import { hasOwnKey } from '../../lib/own.js';
import { recordFile } from '../../local-record/file.js';
import { fullName, type RememberedModel, readModelRecord } from '../../models/local-record.js';
import { BUILT_IN_REWARDS, JUDGE_PREFIX } from '../../rollouts/defaults.js';
import { configFilePath } from '../../settings/config-file.js';
import type { Env, GlobalOptions } from '../../settings/global-options.js';
import { isBuiltinProfile, profileNames } from '../../settings/profiles.js';
import { Settings } from '../../settings/resolve.js';
import type { ValueKind } from '../value-kinds.js';

export interface Candidate {
  value: string;
  description?: string;
}

/**
 * How each remembered model is best named: the shortest of name, project/name, team/project/name that
 * is unique, in one pass. A form is unique when exactly one model's full name ends with "/form": every
 * such ending of every full name is counted once (a Map, never a plain object: names are anyone's), so
 * a TAB over n models costs n, not n².
 */
export function shortestNames(known: readonly RememberedModel[]): { names: string[]; fulls: string[] } {
  const fulls = known.map(fullName);
  const endings = new Map<string, number>();
  for (const full of fulls) {
    // Each ending after a "/" (a field holding a "/" of its own, written by hand, adds one: as before).
    for (let slash = full.indexOf('/'); slash >= 0; slash = full.indexOf('/', slash + 1)) {
      const ending = full.slice(slash + 1);
      endings.set(ending, (endings.get(ending) ?? 0) + 1);
    }
  }
  const names = known.map((model, i) => {
    if (endings.get(model.name) === 1) return model.name;
    const projectName = `${model.project}/${model.name}`;
    return endings.get(projectName) === 1 ? projectName : fulls[i]!;
  });
  return { names, fulls };
}

export class LocalValues {
  private cachedSettings: Settings | undefined;

  constructor(
    private readonly env: Env,
    /** The global options typed on the line being completed: --profile and --base-url matter here. */
    private readonly globals: GlobalOptions,
  ) {}

  private get settings(): Settings {
    this.cachedSettings ??= new Settings(this.globals, this.env, configFilePath(this.env));
    return this.cachedSettings;
  }

  /** Names of models and jobs are per base URL (the local records say against which). */
  private get baseUrl(): string | undefined {
    return this.settings.get('base-url');
  }

  private file(name: 'models' | 'jobs'): string {
    return recordFile({ env: this.env }, name);
  }

  profiles(): Candidate[] {
    const stored = this.settings.config().profiles;
    const names = profileNames(stored);
    return names.map((value) => ({
      value,
      description: isBuiltinProfile(value)
        ? hasOwnKey(stored, value)
          ? 'built in, changed in the config file'
          : 'built in'
        : 'in the config file',
    }));
  }

  models(): Candidate[] {
    const baseUrl = this.baseUrl;
    const known = readModelRecord(this.file('models')).models.filter((m) => m.base_url === baseUrl);
    const { names, fulls } = shortestNames(known);
    return known.map((m, i) => ({
      value: names[i]!,
      description: `${fulls[i]}, from ${m.base_model}`,
    }));
  }

  chatModels(): Candidate[] {
    const fallback = this.settings.get('default-model');
    const models = this.models();
    if (fallback && !models.some((m) => m.value === fallback))
      models.unshift({ value: fallback, description: 'the default-model setting' });
    return models;
  }

  /** Newest first: the job one is after is usually the last one started. */
  jobs(): Candidate[] {
    const baseUrl = this.baseUrl;
    const jobs = readJobRecord(this.file('jobs')).jobs.filter((j) => j.base_url === baseUrl);
    return jobs
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))
      .map((j) => ({
        value: j.id,
        description: `${j.kind} ${j.model}, ${finalOf(j)?.state ?? `created ${j.created_at.slice(0, 16).replace('T', ' ')}`}`,
      }));
  }

  of(kind: Exclude<ValueKind, 'file' | 'directory'>): Candidate[] {
    switch (kind) {
      case 'profile':
        return this.profiles();
      case 'model':
        return this.models();
      case 'chat-model':
        return this.chatModels();
      case 'job':
        return this.jobs();
      case 'reward':
        return [
          ...BUILT_IN_REWARDS.map((value) => ({ value, description: "compared with the task's reference" })),
          { value: JUDGE_PREFIX, description: 'judge:MODEL, a model of the Inference API scores each reply' },
        ];
    }
  }
}
