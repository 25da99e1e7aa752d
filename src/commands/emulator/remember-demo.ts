// `aip emulator --demo` seeds a model and its job on the emulator's side; aip names only the models and
// jobs this machine remembers (models/local-record.ts, jobs/local-record.ts), so without this the
// demo's `demo-agent` could be named by no command. The emulator's own process remembers them, against
// the base URL it serves, in the config directory it was started with (the detached child is given
// the starter's environment): `aip --profile local checkpoints list demo-agent` then works.

import type { Context } from '../../context.js';
import { demoSeeds, type RunningEmulator } from '../../emulator/index.js';
import { type RememberedJob, rememberJob } from '../../jobs/local-record.js';
import { jobRecordFile } from '../../jobs/resolve.js';
import { rememberModel } from '../../models/local-record.js';
import { modelRecordFile } from '../../models/resolve.js';

export async function rememberDemo(ctx: Context, emu: RunningEmulator): Promise<void> {
  const seeds = demoSeeds(emu.state);
  if (!seeds) return;
  const { model, jobs } = seeds;
  const baseUrl = emu.urls.base;
  await rememberModel(modelRecordFile(ctx), {
    id: model.id,
    entity: model.entity,
    project: model.project,
    name: model.name,
    base_model: model.base_model,
    base_url: baseUrl,
    created_at: model.created_at,
  });
  for (const job of jobs) {
    const entry: RememberedJob = {
      id: job.id,
      kind: job.kind,
      model_id: model.id,
      model: `${model.entity}/${model.project}/${model.name}`,
      base_url: baseUrl,
      created_at: new Date(job.createdAt).toISOString(),
    };
    await rememberJob(jobRecordFile(ctx), entry);
  }
}
