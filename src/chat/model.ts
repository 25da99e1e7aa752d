// Which model, on which API. Trained checkpoints are models on the Training API, addressed as
// wandb-artifact:///team/project/name[:stepN] (api-contract.md §2.8); a model this machine created
// may be named instead: `name:step5`, `team/project/name:latest`, or just `name` (the latest step).
// Anything else is an Inference API model id.

import { modelRegistryFile } from '../commands/models/resolve.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { fullName, readModelRegistry } from '../registry/models.js';
import type { ChatApi } from './types.js';

export interface ChatModel {
  model: string;
  api: ChatApi;
}

const STEP = /^(.+?)(?::(latest|step\d+))?$/;

export function resolveChatModel(ctx: Context, ref: string, apiFlag: ChatApi | undefined): ChatModel {
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
  const known = readModelRegistry(modelRegistryFile(ctx)).models.filter((m) => m.base_url === baseUrl);
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
    const suffix = alias === undefined || alias === 'latest' ? '' : `:${alias}`;
    return { model: `wandb-artifact:///${fullName(matches[0]!)}${suffix}`, api: apiFlag ?? 'training' };
  }
  return { model: ref, api: apiFlag ?? 'inference' };
}
