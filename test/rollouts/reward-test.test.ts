// The report of `aip reward test`, built from outcomes alone: the distribution of rewards, the groups
// that do not vary, the failures, the time per call; and the replies file's lines.

import { describe, expect, it } from 'vitest';
import {
  buildReport,
  distribution,
  groupReplies,
  histogram,
  outcomeOfGroup,
  quantile,
  replyLineIssues,
  reportLines,
  type TaskOutcome,
  timedScorer,
} from '../../src/rollouts/reward-test.js';
import type { Scorer } from '../../src/rollouts/run.js';

const outcome = (task_id: string, rewards: number[], failures: TaskOutcome['failures'] = []) => ({
  task_id,
  rewards,
  failures,
});

describe('the distribution of rewards', () => {
  it('counts, mean, spread, extremes and quantiles (interpolated between ranks)', () => {
    const d = distribution([0, 1, 0.5, 0.25, 0.75])!;
    expect(d).toMatchObject({ count: 5, mean: 0.5, min: 0, max: 1 });
    expect(d.std).toBeCloseTo(Math.sqrt(0.125));
    expect(d.quantiles).toEqual({ p10: 0.1, p25: 0.25, p50: 0.5, p75: 0.75, p90: 0.9 });
    expect(quantile([3], 0.95)).toBe(3);
    expect(distribution([])).toBeNull();
  });

  it('a bin per value when there are few, equal-width bins when many', () => {
    expect(histogram([0, 0, 0, 1])).toEqual([
      { from: 0, to: 0, count: 3 },
      { from: 1, to: 1, count: 1 },
    ]);
    const many = Array.from({ length: 100 }, (_, i) => i / 99);
    const bins = histogram(many);
    expect(bins).toHaveLength(10);
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(100);
    expect(bins[0]!.from).toBe(0);
    expect(bins.at(-1)!.to).toBe(1);
    expect(bins.every((b) => b.count === 10)).toBe(true);
  });
});

describe('buildReport', () => {
  const report = buildReport({
    mode: 'replies',
    reward: '--reward exact',
    outcomes: [
      outcome('a', [1, 1, 1]),
      outcome('b', [0, 1, 0]),
      outcome('c', [0, 0], [{ sample: 1, reason: 'reward: exit 3: no reference' }]),
      outcome('d', [0.5]),
    ],
    durations: [4, 1, 3, 2, 100],
  });

  it('lists the groups whose rewards do not vary, failed samples aside; a group of one is not judged', () => {
    expect(report.constant_groups).toEqual([
      { task_id: 'a', reward: 1, samples: 3 },
      { task_id: 'c', reward: 0, samples: 2 },
    ]);
    expect(report.too_small_groups).toBe(1);
  });

  it('counts samples and lists every failure with its task, sample and reason', () => {
    expect(report).toMatchObject({ tasks: 4, samples: 10, scored: 9, failed: 1 });
    expect(report.failures).toEqual([{ task_id: 'c', sample: 1, reason: 'reward: exit 3: no reference' }]);
    expect(report.rewards!.count).toBe(9);
  });

  it('times each call: median, p95, max and total of the durations given', () => {
    expect(report.timing).toMatchObject({ calls: 5, median_ms: 3, max_ms: 100, total_ms: 110 });
    expect(report.timing!.p95_ms).toBeCloseTo(80.8);
    expect(buildReport({ mode: 'sampled', reward: 'x', outcomes: [], durations: [] }).timing).toBeNull();
  });

  it('prints the distribution, the constant groups, the failures and the time, in that order', () => {
    const lines = reportLines(report);
    const text = lines.join('\n');
    expect(lines[0]).toBe('--reward exact: 4 tasks, 10 samples, 9 scored, 1 failed');
    expect(text).toContain('Rewards (9)');
    expect(text).toMatch(/^ {2}0 {4}4 {2}█{30}$/m);
    expect(text).toMatch(/^ {2}1 {4}4 {2}█{30}$/m);
    expect(text).toMatch(/^ {2}0\.5 {2}1 {2}█{8}$/m);
    expect(text).toContain('Groups that do not vary: 2 of 3');
    expect(text).toMatch(/^ {2}a {2}3 × 1$/m);
    expect(text).toContain('(1 group with fewer than two scored samples not judged)');
    expect(text).toContain('Failures (1)\n  c sample 1: reward: exit 3: no reference');
    expect(text).toContain('Time per reward call (5 calls): median 3 ms, p95 80.8 ms, max 100 ms');
    const order = ['Rewards', 'Groups that do not vary', 'Failures', 'Time per reward call'].map((h) =>
      text.indexOf(h),
    );
    expect([...order].sort((x, y) => x - y)).toEqual(order);
  });

  it('says so when nothing was scored or no group could be judged', () => {
    const none = reportLines(
      buildReport({
        mode: 'sampled',
        reward: '--reward-cmd false',
        outcomes: [outcome('a', [], [{ sample: 0, reason: 'reward: exit 1' }])],
        durations: [1],
      }),
    ).join('\n');
    expect(none).toContain('Rewards: none (no sample was scored)');
    expect(none).toContain('none could be judged');
  });
});

describe('outcomeOfGroup', () => {
  it('reads rewards from the trajectories, and sample and reason from the exceptions', () => {
    expect(
      outcomeOfGroup('t', {
        trajectories: [{ reward: 0.5 }, { reward: 1 }],
        exceptions: [
          { type: 'RolloutError', message: 'sample 2: reward: timed out after 3s', traceback: '' },
        ],
      }),
    ).toEqual({
      task_id: 't',
      rewards: [0.5, 1],
      failures: [{ sample: 2, reason: 'reward: timed out after 3s' }],
    });
  });
});

describe('timedScorer', () => {
  it('times every call, a failed one too, and keeps close()', async () => {
    let clock = 0;
    let closed = false;
    const inner = (async (_task, _t, reply) => {
      clock += reply.length;
      return reply === 'bad' ? { ok: false, reason: 'no' } : { ok: true, scored: { reward: 1 } };
    }) as Scorer;
    inner.close = async () => {
      closed = true;
    };
    const durations: number[] = [];
    const timed = timedScorer(inner, durations, () => clock);
    const task = { id: 't', messages: [] };
    await timed(task, {}, 'a', new AbortController().signal);
    await timed(task, {}, 'bad', new AbortController().signal);
    expect(durations).toEqual([1, 3]);
    await timed.close?.();
    expect(closed).toBe(true);
  });
});

describe('the replies file', () => {
  const known = new Set(['t1', '2']);
  it('takes one reply or a list of them for a task of the tasks file', () => {
    expect(replyLineIssues({ task_id: 't1', reply: 'x' }, known)).toEqual([]);
    expect(replyLineIssues({ task_id: 2, replies: ['a', 'b'] }, known)).toEqual([]);
  });

  it('refuses a missing or unknown task, no reply, both forms, and replies that are not strings', () => {
    const msgs = (value: unknown) => replyLineIssues(value, known).map((i) => i.msg);
    expect(msgs({ reply: 'x' })).toEqual(['Field required']);
    expect(msgs({ task_id: 'nope', reply: 'x' })).toEqual(['no task "nope" in the tasks file']);
    expect(msgs({ task_id: 't1' })).toEqual(['give "reply" (one reply) or "replies" (a list of them)']);
    expect(msgs({ task_id: 't1', reply: 'a', replies: ['b'] })).toEqual([
      'give "reply" or "replies", not both',
    ]);
    expect(replyLineIssues({ task_id: 't1', replies: [] }, known)).toHaveLength(1);
    expect(replyLineIssues({ task_id: 't1', replies: ['a', 3] }, known)[0]!.path).toEqual(['replies', 1]);
    expect(replyLineIssues({ task_id: 't1', reply: 3 }, known)[0]!.path).toEqual(['reply']);
  });

  it('groups the lines of a task in file order, tasks in the order they first appear', () => {
    expect(
      groupReplies([
        { task_id: '2', reply: 'a' },
        { task_id: 't1', replies: ['b', 'c'] },
        { task_id: 2, reply: 'd' },
      ]),
    ).toEqual([
      { task_id: '2', replies: ['a', 'd'] },
      { task_id: 't1', replies: ['b', 'c'] },
    ]);
  });
});
