import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerBase } from './base.js';
import { registerCreate } from './create.js';
import { registerDelete } from './delete.js';
import { registerForget } from './forget.js';
import { registerList } from './list.js';
import { registerLog } from './log.js';

export function registerModels(program: Parent, ctx: Context): void {
  const models = examples(
    program
      .command('models')
      .description('list inference models; create, delete, log to and forget trainable models'),
    ['aip models list', 'aip models create --name agent-001 --base-model OpenPipe/Qwen3-14B-Instruct'],
  );
  verbs(models, () => {
    registerList(models, ctx);
    registerBase(models, ctx);
    registerCreate(models, ctx);
    registerDelete(models, ctx);
    registerForget(models, ctx);
    registerLog(models, ctx);
  });
}
