// `aip models create`: POST /preview/models (never sent twice), then remembered locally so that later
// commands can name the model instead of giving its UUID.

import type { ModelResponse } from '../../api/types.js';
import { githubActions } from '../../ci/github.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, UsageError } from '../../errors/errors.js';
import { fullName, readModelRecord, rememberModel } from '../../models/local-record.js';
import { modelRecordFile } from '../../models/resolve.js';
import { printFields } from '../../output/table.js';
import type { CreateOptions } from './create.js';

export function printModel(ctx: Context, model: ModelResponse): void {
  const { io } = ctx;
  if (ctx.json) io.json(model);
  else if (io.quiet) io.out(model.id);
  else
    printFields(io, [
      ['id', model.id],
      ['name', fullName(model)],
      ['base model', model.base_model],
      ['run id', model.run_id ?? ''],
    ]);
}

export async function runCreate(ctx: Context, opts: CreateOptions): Promise<void> {
  const project = ctx.settings.get('project');
  if (!project) {
    throw new UsageError(
      'no project to create the model in: pass --project team/project, or aip config set project team/project',
    );
  }
  const [entity, projectName] = project.split('/') as [string, string];
  // The local record must be readable before the model exists: a create that succeeded must not be
  // reported as a failure because it could not be remembered.
  const record = modelRecordFile(ctx);
  readModelRecord(record);
  let model: ModelResponse;
  try {
    model = await ctx.training().createModel({
      entity,
      project: projectName,
      name: opts.name,
      base_model: opts.baseModel,
      return_existing: opts.returnExisting === true,
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 409)
      error.hint = 'pass --return-existing to get the existing model';
    // The model may have been made: the same create with --return-existing gives it if it was, and
    // makes it if it was not (a model is found by its name).
    if (error instanceof CliError && error.uncertain)
      error.hint = `find out, and create it if it was not, with: ${ctx.commandLine([
        'models',
        'create',
        '--name',
        opts.name,
        '--base-model',
        opts.baseModel,
        '--project',
        project,
        '--return-existing',
      ])}`;
    throw error;
  }
  printModel(ctx, model);
  // On GitHub Actions, for the steps after: `${{ steps.<id>.outputs.model-id }}`.
  githubActions(ctx)?.setOutputs({ 'model-id': model.id });
  ctx.history.created({
    what: 'model',
    id: model.id,
    name: `${model.entity}/${model.project}/${model.name}`,
    base_url: ctx.serviceUrl('training'),
    profile: ctx.settings.profile,
  });
  try {
    await rememberModel(record, {
      id: model.id,
      entity: model.entity,
      project: model.project,
      name: model.name,
      base_model: model.base_model,
      base_url: ctx.serviceUrl('training'),
      created_at: new Date().toISOString(),
    });
  } catch (error) {
    ctx.io.warn(
      `the model was created, but could not be remembered by name (${(error as Error).message}); use its id`,
    );
  }
}
