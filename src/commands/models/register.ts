import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

export function registerModels(program: Command, ctx: Context): void {
  const models = program
    .command('models')
    .description('list inference models; create, delete, log to and forget trainable models');
  examples(models, [
    'aip models list',
    'aip models create --name agent-001 --base-model OpenPipe/Qwen3-14B-Instruct',
  ]);

  const list = models
    .command('list')
    .description(
      'the Inference API model list (the openai SDK, with the OpenAI-Project header of the project)',
    )
    .action(async () => {
      const { runList } = await import('./list.js');
      await runList(ctx);
    });
  examples(list, ['aip models list', 'aip models list --json | jq -r ".[].id"', 'aip models list -q']);

  const base = models
    .command('base')
    .description('the base models the Training API can train')
    .action(async () => {
      const { runBase } = await import('./base.js');
      await runBase(ctx);
    });
  examples(base, ['aip models base']);

  const create = models
    .command('create')
    .description(
      'create a trainable model in the project (--project or the project setting), and remember it by name',
    )
    .requiredOption('--name <name>', 'model name, unique within the project')
    .requiredOption('--base-model <id>', 'base model to train from (see aip models base)')
    .option('--return-existing', 'if a model of that name exists, return it instead of failing')
    .action(async (opts: { name: string; baseModel: string; returnExisting?: boolean }) => {
      const { runCreate } = await import('./create.js');
      await runCreate(ctx, opts);
    });
  examples(create, [
    'aip models create --name agent-001 --base-model OpenPipe/Qwen3-14B-Instruct',
    'aip --project my-team/mail models create --name agent-001 --base-model OpenPipe/Qwen3-14B-Instruct --return-existing -q',
  ]);

  const del = models
    .command('delete')
    .description(
      'delete a model with all its checkpoints and its run (asks first on a terminal; --yes in scripts)',
    )
    .argument('<model>', 'model id, or a name created from this machine (team/project/name or name)')
    .action(async (model: string) => {
      const { runDelete } = await import('./delete.js');
      await runDelete(ctx, model);
    });
  examples(del, ['aip models delete agent-001', 'aip models delete 3f0c…-uuid --yes']);

  const forget = models
    .command('forget')
    .description(
      'forget remembered names on this machine, for this base URL (the server is not asked to delete anything)',
    )
    .argument('[model...]', 'a name created from this machine (team/project/name or name), or its id')
    .option(
      '--all',
      'forget every model remembered for this base URL (asks first on a terminal; --yes in scripts)',
    )
    .option('--stale', 'ask the server about each remembered model and forget those it no longer knows')
    .action(async (refs: string[], opts: { all?: boolean; stale?: boolean }) => {
      const { runModelsForget } = await import('./forget.js');
      await runModelsForget(ctx, refs, opts);
    });
  examples(forget, [
    'aip models forget agent-001',
    'aip --profile local models forget --stale',
    'aip models forget --all --yes',
  ]);

  const log = models
    .command('log')
    .description(
      'log trajectory groups to the model (checked offline first; nothing is sent if one is invalid)',
    )
    .argument('<model>', 'model id, or a name created from this machine')
    .requiredOption('--split <name>', 'the split to log to, e.g. train or val')
    .requiredOption(
      '--file <path>',
      'trajectory groups: a JSON array, or JSON Lines (one group per line); - for stdin',
    )
    .action(async (model: string, opts: { split: string; file: string }) => {
      const { runLog } = await import('./log.js');
      await runLog(ctx, model, opts);
    });
  examples(log, [
    'aip models log agent-001 --split val --file groups.jsonl',
    'generate-groups | aip models log agent-001 --split train --file -',
  ]);
}
