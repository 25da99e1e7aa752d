// The settings of a training job from its flags and --config, checked offline before anything is
// sent: `jobs create rl|sft` and `train rl` build them the same way. An unknown or mistyped setting is
// refused (exit 2), listing every problem.

import { readFileSync } from 'node:fs';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { annotateConfigProblems, type SettingProblem } from '../validate/config-problems.js';
import { EXPERIMENTAL_FIELDS } from '../validate/jobs-schema.js';
import { type Fields, formatPath, obj, validate } from '../validate/schema.js';

/** A JSON object given inline ('{…}') or as a file path (optionally '@path'). */
export function loadJsonObject(value: string, flag: string): Record<string, unknown> {
  const inline = value.trim().startsWith('{');
  let text = value;
  if (!inline) {
    const path = value.startsWith('@') ? value.slice(1) : value;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new UsageError(
        `${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code}); give a JSON object or a file holding one`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag}: not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(parsed)) throw new UsageError(`${flag}: expected a JSON object`);
  return parsed;
}

/**
 * Checks settings against the schema's fields; an unknown name is refused (a typo, most likely). With
 * `configFile` (--config given as a file), each problem is also annotated on its line on CI.
 */
export function checkSettings(
  ctx: Context,
  settings: Record<string, unknown>,
  fields: Fields,
  what: string,
  configFile: string | undefined,
): void {
  const problems: SettingProblem[] = validate(obj({}, fields), settings).map((i) => ({
    path: i.path,
    message: `${what}.${formatPath(i.path)}: ${i.msg}`,
  }));
  for (const key of Object.keys(settings)) {
    if (!Object.hasOwn(fields, key))
      problems.push({
        path: [key],
        message: `${what}.${key}: not a setting of ${what}; known: ${Object.keys(fields).join(', ')}`,
      });
  }
  if (problems.length === 0) return;
  if (configFile !== undefined && !configFile.trim().startsWith('{'))
    annotateConfigProblems(ctx.io, configFile, problems);
  throw new UsageError(
    `--config: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the ${what}; nothing was sent`,
    { details: problems.map((p) => p.message) },
  );
}

/** Drops the flags that were not given, so that they do not override the config. */
export function given(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** The RL flags (commands/rl-config-flags.ts), as their definition types them. */
export interface RlConfigOptions {
  learningRate?: number;
  lossFn?: string;
  klPenaltyCoef?: number;
  epsilon?: number;
  advantageBalance?: number;
  allowTrainingWithoutLogprobs?: boolean;
  config?: string;
}

/** An RL job's experimental_config: --config, with the flags given laid over it; checked. */
export function rlExperimentalConfig(ctx: Context, options: RlConfigOptions): Record<string, unknown> {
  const fromFile = options.config === undefined ? {} : loadJsonObject(options.config, '--config');
  const experimental = {
    ...fromFile,
    ...given({
      learning_rate: options.learningRate,
      loss_fn: options.lossFn,
      kl_penalty_coef: options.klPenaltyCoef,
      epsilon: options.epsilon,
      advantage_balance: options.advantageBalance,
      allow_training_without_logprobs: options.allowTrainingWithoutLogprobs,
    }),
  };
  checkSettings(ctx, experimental, EXPERIMENTAL_FIELDS, 'experimental_config', options.config);
  return experimental;
}
