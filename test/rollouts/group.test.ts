// The pure half of a rollout run (src/rollouts/group.ts): a group built from its samples' outcomes,
// and the assembler that hands a task's outcomes back once all K are in, whatever their order.

import { describe, expect, it } from 'vitest';
import { buildGroup, GroupAssembler, type Outcome } from '../../src/rollouts/group.js';
import type { Task } from '../../src/rollouts/tasks.js';

const task: Task = {
  id: 't1',
  messages: [{ role: 'user', content: 'What is 2+2?' }],
  metadata: { source: 'unit' },
} as unknown as Task;

const origin = {
  rollout_seed: 7,
  rollout_model: 'wandb-artifact:///team/project/m',
  rollout_params: { temperature: 1 },
  rollout_reward: '--reward exact',
};

function trajectory(reward: number, sample: number): Outcome {
  return {
    reward,
    trajectory: {
      messages_and_choices: [
        ...task.messages,
        {
          finish_reason: 'stop',
          index: 0,
          message: { role: 'assistant', content: '4' },
          logprobs: null,
        },
      ],
      metadata: { task_id: task.id, sample },
      reward,
    },
  };
}

describe('buildGroup', () => {
  it("keeps trajectories in sample order, failures as exceptions naming their sample, and the run's origin", () => {
    const group = buildGroup(
      task,
      [trajectory(1, 0), { failure: 'reward: exit 3' }, trajectory(0, 2)],
      origin,
    );
    expect((group.trajectories as Array<{ reward: number }>).map((t) => t.reward)).toEqual([1, 0]);
    expect(group.exceptions).toEqual([
      { type: 'RolloutError', message: 'sample 1: reward: exit 3', traceback: '' },
    ]);
    // The task's own metadata first, then what --resume reads back, in this order.
    expect(Object.keys(group.metadata as object)).toEqual([
      'source',
      'task_id',
      'rollout_seed',
      'rollout_model',
      'rollout_params',
      'rollout_reward',
    ]);
    expect(group.metadata).toMatchObject({ task_id: 't1', ...origin });
  });

  it('has no exceptions member when nothing failed', () => {
    expect(buildGroup(task, [trajectory(1, 0), trajectory(1, 1)], origin)).not.toHaveProperty('exceptions');
  });

  it('refuses to hand on a group its own validator would refuse', () => {
    const broken: Outcome = { reward: 1, trajectory: { messages_and_choices: 'not a list' } };
    expect(() => buildGroup(task, [broken], origin)).toThrow(
      /internal: the group of task t1 does not pass its own check/,
    );
  });
});

describe('GroupAssembler', () => {
  it('hands back the outcomes once all K are in, in sample order, whatever order they ended in', () => {
    const groups = new GroupAssembler(3);
    expect(groups.add('a', 2, { failure: 'two' })).toBeUndefined();
    expect(groups.add('b', 0, { failure: 'b0' })).toBeUndefined();
    expect(groups.add('a', 0, { failure: 'zero' })).toBeUndefined();
    expect(groups.unfinished).toBe(2);
    expect(groups.add('a', 1, { failure: 'one' })).toEqual([
      { failure: 'zero' },
      { failure: 'one' },
      { failure: 'two' },
    ]);
    expect(groups.unfinished).toBe(1);
  });

  it('refuses a sample that ends twice (a group would be written short or twice)', () => {
    const groups = new GroupAssembler(2);
    groups.add('a', 0, { failure: 'x' });
    expect(() => groups.add('a', 0, { failure: 'x' })).toThrow(/ended twice/);
  });

  it('task ids that are names of Object.prototype members are tasks like any other', () => {
    const groups = new GroupAssembler(1);
    for (const id of ['__proto__', 'constructor', 'toString'])
      expect(groups.add(id, 0, { failure: id })).toEqual([{ failure: id }]);
  });
});
