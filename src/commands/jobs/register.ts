import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerCreate } from './create.js';
import { registerForget } from './forget.js';
import { registerGet } from './get.js';
import { registerList } from './list.js';
import { registerValidate } from './validate.js';
import { registerWait } from './wait.js';

export function registerJobs(program: Parent, ctx: Context): void {
  const jobs = examples(
    program
      .command('jobs')
      .description('create, validate, inspect, wait for and forget RL and SFT training jobs'),
    ['aip jobs create rl --model agent-001 --file groups.jsonl --wait', 'aip jobs list'],
  );
  verbs(jobs, () => {
    registerCreate(jobs, ctx);
    registerValidate(jobs, ctx);
    registerGet(jobs, ctx);
    registerWait(jobs, ctx);
    registerList(jobs, ctx);
    registerForget(jobs, ctx);
  });
}
