// `aip jobs create rl|sft`: everything is checked offline (the data, the config) before one POST is
// sent, and that POST is never retried once it may have reached the server. --dry-run prints the
// exact request instead; --wait follows the job to its end.

import type { PreparedRequest, RequestOptions } from '../../api/http.js';
import { lineLimitFrom } from '../../api/limits.js';
import { rlJobRequest, sftJobRequest } from '../../api/training.js';
import type { CreateRlJob, CreateSftJob, JobKind, JobResponse } from '../../api/types.js';
import { githubActions } from '../../ci/github.js';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { checkSettings, given, loadJsonObject, rlExperimentalConfig } from '../../jobs/job-config.js';
import { type RememberedJob, readJobRecord, rememberJob } from '../../jobs/local-record.js';
import { jobRecordFile } from '../../jobs/resolve.js';
import { aboutEntry, JUST_CREATED, jobJson } from '../../jobs/shape.js';
import { watchJob } from '../../jobs/watch.js';
import { isObject } from '../../lib/json.js';
import { type ModelRef, resolveModelArg, withModel } from '../../models/resolve.js';
import { redactHeader } from '../../output/secrets.js';
import { printFields } from '../../output/table.js';
import { isoTime } from '../../output/time.js';
import { problemLines } from '../../validate/check-file.js';
import { SFT_CONFIG_FIELDS } from '../../validate/jobs-schema.js';
import { checkSftFile } from '../../validate/sft.js';
import { readTrajectoryGroups } from '../../validate/trajectory-file.js';
import type { CreateRlOptions, CreateSftOptions } from './create.js';

function printDryRun(ctx: Context, request: PreparedRequest): void {
  const { io } = ctx;
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, redactHeader(k, v)]),
  );
  // A job request's body is JSON text (only trace batches are binary).
  const text = request.body === undefined ? undefined : request.body.toString();
  const body = text === undefined ? undefined : JSON.parse(text);
  if (ctx.json) {
    io.json({ method: request.method, url: request.url, headers, body });
    return;
  }
  io.out(`${request.method} ${request.url}`);
  for (const [name, value] of Object.entries(headers)) io.out(`${name}: ${value}`);
  io.out();
  io.out(io.isStdoutTTY ? JSON.stringify(body, null, 2) : (text ?? ''));
  io.info('Dry run: nothing was sent');
}

async function submit(
  ctx: Context,
  kind: JobKind,
  model: ModelRef,
  request: RequestOptions,
  options: CreateRlOptions | CreateSftOptions,
  argv: readonly string[],
): Promise<void> {
  const { io } = ctx;
  if (options.dryRun) {
    // A dry run shows the request even without a key (the real one would stop with exit 4).
    const training = ctx.training({ auth: 'optional' });
    if (!ctx.settings.apiKey())
      io.warn('no API key: the real request would fail (aip auth login, or AIP_API_KEY)');
    printDryRun(ctx, training.http.prepare(request));
    return;
  }
  const training = ctx.training();
  // Readable before the job exists: a create that succeeded must not look like a failure.
  const record = jobRecordFile(ctx);
  readJobRecord(record);
  // The only 404 a create can meet is for its model: one named here may be stale.
  let job: JobResponse;
  try {
    job = await withModel(ctx, model, () => training.send<JobResponse>(request));
  } catch (error) {
    // The job may have been made, and the platform cannot list jobs: what a job leaves is checkpoints.
    if (error instanceof CliError && error.uncertain)
      error.hint = `it was not remembered, and the platform cannot list jobs: to see whether it ran, watch for new checkpoints with ${ctx.commandLine(['checkpoints', 'list', model.id])} before creating it again`;
    throw error;
  }
  // The contract's whole answer is {id}: without one there is no job to remember or follow.
  if (!isObject(job) || typeof job.id !== 'string' || !job.id)
    throw new CliError(
      'the server answered the create without a job id: the job may exist, unnamed; nothing was remembered',
    );
  const entry: RememberedJob = {
    id: job.id,
    kind,
    model_id: model.id,
    model: model.entry ? `${model.entry.entity}/${model.entry.project}/${model.entry.name}` : model.id,
    base_url: ctx.serviceUrl('training'),
    // ISO 8601 whatever form the server's time has (and the local clock's when it gives none).
    created_at: isoTime(job.created_at) ?? new Date().toISOString(),
  };
  ctx.history.created({
    what: 'job',
    id: job.id,
    name: entry.model,
    kind,
    base_url: entry.base_url,
    profile: ctx.settings.profile,
  });
  try {
    await rememberJob(record, entry);
  } catch (error) {
    io.warn(`the job was created, but could not be remembered (${(error as Error).message}); use its id`);
  }
  if (options.wait) {
    // The id is the result (for scripts: id=$(aip -q jobs create … --wait)); --json gives the end state.
    if (!ctx.json) io.out(job.id);
    io.info(
      `Created ${kind.toUpperCase()} job for ${model.label}; following it (Ctrl-C stops watching, not the job)`,
    );
    await watchJob(
      ctx,
      { id: job.id, entry },
      { intervalSeconds: options.interval, stall: options.stall, argv },
    );
    return;
  }
  // A later step of the workflow waits for it, or reads it, by these.
  githubActions(ctx)?.setOutputs({ 'job-id': job.id, 'model-id': model.id });
  // Its events are not read: a job just created has none yet, so it is queued (as for jobs get).
  if (ctx.json) return io.json(jobJson(job.id, aboutEntry(entry), JUST_CREATED));
  if (io.quiet) return io.out(job.id);
  printFields(io, [
    ['id', job.id],
    ['kind', kind],
    ['model', model.label],
  ]);
  io.info(`Follow it with: ${ctx.commandLine(['jobs', 'wait', job.id])}`);
}

/** --stall without --wait: refused before anything is read or sent. */
function checkWaitFlags(options: CreateRlOptions | CreateSftOptions): void {
  if (options.stall !== undefined && !options.wait)
    throw new UsageError('--stall is for waiting: give --wait with it');
}

export async function runCreateRl(
  ctx: Context,
  options: CreateRlOptions,
  argv: readonly string[] = [],
): Promise<void> {
  checkWaitFlags(options);
  const model = resolveModelArg(ctx, options.model);
  const experimental = rlExperimentalConfig(ctx, options);
  const { groups } = await readTrajectoryGroups(ctx, options.file);
  const body: CreateRlJob = { model_id: model.id, trajectory_groups: groups };
  if (Object.keys(experimental).length > 0) body.experimental_config = experimental;
  await submit(ctx, 'rl', model, rlJobRequest(body), options, argv);
}

/** A local copy of SFT data, checked: every problem on stderr, then a usage error (nothing sent). */
async function requireValidSftFile(ctx: Context, path: string): Promise<void> {
  const { checked } = await checkSftFile(path, ctx.io, lineLimitFrom(ctx.env));
  if (checked.problemCount === 0) return;
  for (const line of problemLines(checked)) ctx.io.err(line);
  throw new UsageError(
    `${checked.name}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in ${checked.documents} training examples; nothing was sent`,
  );
}

export async function runCreateSft(
  ctx: Context,
  options: CreateSftOptions,
  argv: readonly string[] = [],
): Promise<void> {
  checkWaitFlags(options);
  const model = resolveModelArg(ctx, options.model);
  const config = {
    ...(options.config === undefined ? {} : loadJsonObject(options.config, '--config')),
    ...given({
      batch_size: options.batchSize,
      learning_rate: options.learningRate,
      assistant_turns: options.assistantTurns,
    }),
  };
  checkSettings(ctx, config, SFT_CONFIG_FIELDS, 'config', options.config);
  const experimental =
    options.experimentalConfig === undefined
      ? undefined
      : loadJsonObject(options.experimentalConfig, '--experimental-config');
  const dataUrl = options.dataUrl.trim();
  if (!dataUrl) throw new UsageError('--data-url must not be empty');
  if (!dataUrl.startsWith('wandb-artifact:///')) {
    ctx.io.warn(
      `--data-url "${dataUrl}" is not a wandb-artifact:/// URL; the platform expects wandb-artifact:///entity/project/name:version`,
    );
  }
  if (options.file !== undefined) await requireValidSftFile(ctx, options.file);
  const body: CreateSftJob = { model_id: model.id, training_data_url: dataUrl };
  if (Object.keys(config).length > 0) body.config = config;
  if (experimental) body.experimental_config = experimental;
  await submit(ctx, 'sft', model, sftJobRequest(body), options, argv);
}
