// `aip reward test`: its flags, help and examples; the code that runs is test.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { samplingFlags } from '../sampling-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function define(reward: Parent) {
  const test = reward
    .command('test')
    .description(
      'score a task set with a reward, on fresh samples (--model) or on given replies (--replies), and report the distribution of rewards, the groups whose rewards do not vary, the failures and the time per reward call: exit 1 when any sample failed',
    )
    .addOption(
      valueKind(
        'model',
        new Option(
          '--model <model>',
          'sample fresh replies from this checkpoint (name[:stepN|:best[METRIC]|:latest] or wandb-artifact:///team/project/name[:stepN]), as aip rollouts does',
        ),
      ),
    )
    .addOption(
      valueKind(
        'file',
        new Option(
          '--replies <file>',
          'score these replies instead, offline: JSON Lines {"task_id": …, "reply": "…"} or {"task_id": …, "replies": ["…", …]}; a task\'s lines form its group',
        ),
      ),
    );
  return examples(samplingFlags(test), [
    'aip reward test --tasks tasks.jsonl --replies replies.jsonl --reward-cmd "python3 score.py"',
    'aip reward test --tasks tasks.jsonl --model agent-001 -K 8 --reward exact',
    'aip reward test --tasks tasks.jsonl --model agent-001:step3 --reward-server "python3 serve.py" --json',
  ]);
}

export type RewardTestOptions = OptionsOf<typeof define>;

export function registerTest(reward: Parent, ctx: Context): void {
  define(reward).action(async (options) => {
    const { runRewardTest } = await import('./test.run.js');
    await runRewardTest(ctx, options);
  });
}
