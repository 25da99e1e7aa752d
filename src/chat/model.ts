// Which model, on which API. Trained checkpoints are models on the Training API, addressed as
// wandb-artifact:///team/project/name[:stepN] (api-contract.md §2.8); a model this machine created
// may be named instead: `name:step5`, `team/project/name:latest`, or just `name` (the latest step).
// Anything else is an Inference API model id. `name:best…` (and `name:latest` as a step) are found by
// listing the model's checkpoints, which the commands do first (checkpoints/resolve-alias.ts): here,
// synchronous, a :best of a model created here is refused rather than taken for an Inference API id.

import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { isNotFound } from '../local-record/stale.js';
import { fullName, readModelRecord } from '../models/local-record.js';
import { type ModelRef, modelIsGone, modelRecordFile, staleModelError } from '../models/resolve.js';
import type { ChatApi } from './types.js';

export interface ChatModel {
  model: string;
  api: ChatApi;
}

/** The model named from the local record, when it was (for telling a 404 of a stale name). */
export type RememberedModel = Pick<ModelRef, 'id' | 'entry' | 'byName' | 'ref'>;

const STEP = /^(.+?)(?::(latest|step\d+|step\*|best(?:\[.*)?))?$/s;

export function resolveChatModel(ctx: Context, ref: string, apiFlag: ChatApi | undefined): ChatModel {
  const { remembered: _, ...model } = resolveChatTarget(ctx, ref, apiFlag);
  return model;
}

/** resolveChatModel, and the remembered model the name resolved to, if it did. */
export function resolveChatTarget(
  ctx: Context,
  ref: string,
  apiFlag: ChatApi | undefined,
): ChatModel & { remembered?: RememberedModel } {
  if (ref.startsWith('wandb-artifact:')) {
    if (!ref.startsWith('wandb-artifact:///'))
      throw new UsageError(
        `"${ref}": an artifact model is wandb-artifact:///team/project/name[:stepN] (three slashes)`,
      );
    return { model: ref, api: apiFlag ?? 'training' };
  }
  const [, name, alias] = STEP.exec(ref) ?? [];
  const parts = (name ?? ref).split('/');
  const baseUrl = ctx.serviceUrl('training');
  const known = readModelRecord(modelRecordFile(ctx)).models.filter((m) => m.base_url === baseUrl);
  const matches =
    parts.length <= 3
      ? known.filter((m) => {
          const full = [m.entity, m.project, m.name];
          return parts.every((part, i) => part === full[full.length - parts.length + i]);
        })
      : [];
  if (matches.length > 1) {
    throw new UsageError(`"${name}" names ${matches.length} models: give team/project/name`, {
      details: matches.map(fullName),
    });
  }
  if (matches.length === 1) {
    const entry = matches[0]!;
    if (alias !== undefined && alias !== 'latest' && !alias.startsWith('step'))
      throw new UsageError(
        `"${ref}" is found by listing the checkpoints of ${fullName(entry)}, which is not done here: give ${name}:stepN (${ctx.commandLine(['checkpoints', 'list', name ?? ref, '--all'])})`,
      );
    if (alias === 'step*')
      throw new UsageError(`"${ref}" names every checkpoint of ${fullName(entry)}: give one, ${name}:stepN`);
    const suffix = alias === undefined || alias === 'latest' ? '' : `:${alias}`;
    return {
      model: `wandb-artifact:///${fullName(entry)}${suffix}`,
      api: apiFlag ?? 'training',
      remembered: { id: entry.id, entry, byName: true, ref: name ?? ref },
    };
  }
  return { model: ref, api: apiFlag ?? 'inference' };
}

/**
 * A chat's 404 for a remembered model: a step it does not have, no checkpoint yet, or a model the
 * server no longer knows. Only the last is a stale name, so it is asked (a cheap GET of the model's
 * checkpoints); otherwise, or when that cannot be told, the server's answer stands.
 */
export async function staleChatModel(
  ctx: Context,
  remembered: RememberedModel,
  error: unknown,
): Promise<unknown> {
  if (!isNotFound(error)) return error;
  try {
    return (await modelIsGone(ctx, remembered.id)) ? staleModelError(ctx, remembered, error) : error;
  } catch {
    return error;
  }
}
