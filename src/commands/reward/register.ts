// `aip reward`: what a reward does, tested before a run pays for it.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerTest } from './test.js';

export function registerReward(program: Parent, ctx: Context): void {
  const reward = examples(
    program
      .command('reward')
      .description(
        'test a reward on a task set before training with it: its distribution, groups that do not vary, failures, time per call',
      ),
    [
      'aip reward test --tasks tasks.jsonl --replies replies.jsonl --reward-cmd "python3 score.py"',
      'aip reward test --tasks tasks.jsonl --model agent-001 -K 8 --reward exact',
    ],
  );
  verbs(reward, () => {
    registerTest(reward, ctx);
  });
}
