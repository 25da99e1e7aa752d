// The judge's answer is untrusted (judge-prompt.ts): what a server sends back is read by own keys,
// a score must be a finite number from 0 to 1, and the judge's words are kept cut.

import { describe, expect, it } from 'vitest';
import {
  judgementFormat,
  MAX_KEPT_JUDGEMENT,
  readGroupJudgement,
  readJudgement,
} from '../../src/rollouts/judge-prompt.js';

const answer = (content: string | null, more: { refusal?: string; finishReason?: string } = {}) => ({
  content,
  ...more,
});

describe('readJudgement', () => {
  it('takes a score from 0 to 1, -0 as 0, and keeps the words', () => {
    for (const score of [0, 0.25, 1]) {
      const text = JSON.stringify({ explanation: 'why', score });
      expect(readJudgement(answer(text))).toEqual({
        ok: true,
        scored: { reward: score, metrics: { judge_score: score }, metadata: { judgement: text } },
      });
    }
    const negativeZero = readJudgement(answer('{"explanation": "", "score": -0}'));
    expect(negativeZero.ok && Object.is(negativeZero.scored.reward, 0)).toBe(true);
  });

  it.each([
    ['[0.5]', /not a JSON object/],
    ['0.5', /not a JSON object/],
    ['{"score": null}', /is null, not a number/],
    ['{"score": true}', /is true, not a number/],
    ['{"score": -0.01}', /outside 0 to 1/],
    ['{"score": 1e999}', /not a number/],
    ['{"__proto__": {"score": 1}}', /has no score/],
    ['{"constructor": 1}', /has no score/],
    ['', /answered nothing/],
  ])('%s is no judgement', (content, reason) => {
    const read = readJudgement(answer(content));
    expect(read.ok).toBe(false);
    expect(!read.ok && read.reason).toMatch(reason);
  });

  it('a refusal and a cut answer say so, whatever the content', () => {
    expect(readJudgement(answer('{"score": 1}', { refusal: 'no' }))).toEqual({
      ok: false,
      reason: 'the judge refused: "no"',
    });
    expect(readJudgement(answer('{"score": 1}', { finishReason: 'length' })).ok).toBe(false);
  });

  it('keeps at most MAX_KEPT_JUDGEMENT characters of the words', () => {
    const text = JSON.stringify({ explanation: 'z'.repeat(MAX_KEPT_JUDGEMENT * 2), score: 1 });
    const read = readJudgement(answer(text));
    expect(read.ok && read.scored.metadata!.judgement!.length).toBe(MAX_KEPT_JUDGEMENT + 1);
  });
});

describe('readGroupJudgement', () => {
  it('reads each member under its own key only', () => {
    const content = JSON.stringify({
      reply_1: { explanation: 'a', score: 0.5 },
      reply_3: { explanation: 'c', score: 2 },
      __proto__: { reply_2: { score: 1 } },
    });
    // JSON.parse makes "__proto__" an own key, never the prototype: reply_2 is not found through it.
    const read = readGroupJudgement(answer(content.replace('"__proto__"', '"__proto__"')), 3);
    expect(read.map((r) => (r.ok ? r.scored.reward : r.reason))).toEqual([
      0.5,
      "the judge's answer has no score for reply_2",
      "the judge's score for reply_3 is 2, outside 0 to 1",
    ]);
  });

  it('fails every member with the reason when the answer is no document', () => {
    expect(readGroupJudgement(answer('nope'), 2).map((r) => r.ok)).toEqual([false, false]);
  });

  it('asks for one required key per member, and nothing else', () => {
    const { json_schema } = judgementFormat(3);
    expect(json_schema.schema.required).toEqual(['reply_1', 'reply_2', 'reply_3']);
    expect(Object.keys(json_schema.schema.properties as object)).toEqual(['reply_1', 'reply_2', 'reply_3']);
    expect(json_schema.schema.additionalProperties).toBe(false);
  });
});
