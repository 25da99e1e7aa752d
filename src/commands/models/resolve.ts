// Turning the <model> argument of a command into a model id (see registry/models.ts).

import type { Context } from '../../context.js';
import { registryFile } from '../../registry/file.js';
import { fullName, type ResolvedModel, readModelRegistry, resolveModel } from '../../registry/models.js';

export function modelRegistryFile(ctx: Context): string {
  return registryFile(ctx, 'models');
}

export interface ModelRef extends ResolvedModel {
  /** How to name it in messages: team/project/name when known, else the id. */
  label: string;
}

export function resolveModelArg(ctx: Context, ref: string): ModelRef {
  const resolved = resolveModel(readModelRegistry(modelRegistryFile(ctx)), ref, ctx.serviceUrl('training'));
  return {
    ...resolved,
    label: resolved.entry ? `${fullName(resolved.entry)} (${resolved.id})` : resolved.id,
  };
}
