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

/** How a remembered model is best named: the shortest of name, project/name, team/project/name that is unique. */
function shortestName(model: RememberedModel, known: readonly RememberedModel[]): string {
  const forms = [model.name, `${model.project}/${model.name}`, fullName(model)];
  const depth = forms.findIndex((form) => known.filter((m) => fullName(m).endsWith(`/${form}`)).length === 1);
  return forms[depth < 0 ? 2 : depth]!;
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
    const known = readModelRecord(this.file('models')).models.filter((m) => m.base_url === this.baseUrl);
    return known.map((m) => ({
      value: shortestName(m, known),
      description: `${fullName(m)}, from ${m.base_model}`,
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
    const jobs = readJobRecord(this.file('jobs')).jobs.filter((j) => j.base_url === this.baseUrl);
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
