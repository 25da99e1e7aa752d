import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerRl } from './rl.js';

export function registerTrain(program: Parent, ctx: Context): void {
  const train = examples(
    program
      .command('train')
      .description('training loops: rollouts, a job on them, the next checkpoint, again'),
    ['aip train rl --model agent-001 --tasks tasks.jsonl --reward exact --steps 5'],
  );
  verbs(train, () => {
    registerRl(train, ctx);
  });
}
