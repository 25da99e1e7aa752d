// Turning the <model> argument of a command into a model id (see models/local-record.ts), and telling a
// 404 for a model named from the local record as what it is: a stale name (local-record/stale.ts).

import type { Context } from '../context.js';
import { recordFile } from '../local-record/file.js';
import { argumentWords, isNotFound, staleError } from '../local-record/stale.js';
import { fullName, type ResolvedModel, readModelRecord, resolveModel } from './local-record.js';

export function modelRecordFile(ctx: Context): string {
  return recordFile(ctx, 'models');
}

export interface ModelRef extends ResolvedModel {
  /** How to name it in messages: team/project/name when known, else the id. */
  label: string;
  /** As the user gave it. */
  ref: string;
}

export function resolveModelArg(ctx: Context, ref: string): ModelRef {
  const resolved = resolveModel(readModelRecord(modelRecordFile(ctx)), ref, ctx.serviceUrl('training'));
  ctx.history.note({ model: resolved.entry ? fullName(resolved.entry) : resolved.id });
  return {
    ...resolved,
    ref,
    label: resolved.entry ? `${fullName(resolved.entry)} (${resolved.id})` : resolved.id,
  };
}

/**
 * A 404 for a model given by a remembered name: "model NAME (id …) no longer exists on URL; forget it
 * with aip models forget NAME" (exit 3). Anything else, and a model given by its UUID (the server's
 * own message then), is returned as it is. `forgotten`: the name was forgotten already (models delete).
 */
export function staleModelError(
  ctx: Context,
  model: Pick<ModelRef, 'id' | 'entry' | 'byName' | 'ref'>,
  error: unknown,
  forgotten = false,
): unknown {
  if (!isNotFound(error) || !model.byName || !model.entry) return error;
  const hint = forgotten
    ? 'its name is forgotten'
    : `forget it with ${ctx.commandLine(['models', 'forget', ...argumentWords(model.ref)])}`;
  return staleError(
    `model ${fullName(model.entry)} (id ${model.id})`,
    ctx.serviceUrl('training'),
    error,
    hint,
  );
}

/** Runs the requests of a command about `model`, with a 404 for a stale name told as one. */
export async function withModel<T>(ctx: Context, model: ModelRef, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw staleModelError(ctx, model, error);
  }
}

/** Whether the server no longer knows the model (a cheap authenticated GET; 404 is gone). */
export async function modelIsGone(ctx: Context, id: string): Promise<boolean> {
  try {
    await ctx.training().listCheckpoints(id, { limit: 1 });
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}
