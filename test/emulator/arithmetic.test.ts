// Which prompts the emulated model takes for arithmetic questions (and which it must not: ordinary
// prompts keep their ordinary text), and the curve of its chance to answer them right.

import { describe, expect, it } from 'vitest';
import { arithmeticQuestion } from '../../src/emulator/chat/arithmetic.js';
import { rightChance } from '../../src/emulator/chat/checkpoint-skill.js';
import { messageText } from '../../src/emulator/chat/generate.js';

const ask = (content: string, system?: string) =>
  arithmeticQuestion(
    [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content }],
    messageText,
  );

describe('arithmetic questions', () => {
  it.each([
    ['What is 17 + 25?', 42n],
    ['Compute 12 * 7. Reply with the number only.', 84n],
    ['what is 5 -3', 2n],
    ['What is 4 - -6?', 10n],
    ["what's 9 minus 12", -3n],
    ['How much is 6 plus 7?', 13n],
    ['What is (−5) times 3?', -15n],
    ['WHAT IS 7 MULTIPLIED BY 6?', 42n],
    ['Calculate: 123456 * 654321', 80779853376n],
    ['What is 3x4', 12n],
    ['What is 3 × 4', 12n],
    ['-3 × 4 = ?', -12n],
    ['What is 3 + 4 = ?', 7n],
    ['What is 999999999999 * 999999999999?', 999999999998000000000001n],
  ])('%s → %s', (prompt, answer) => {
    expect(ask(prompt)?.answer).toBe(answer);
  });

  it.each([
    'Say hello to the emulator',
    'I have 3 - 4 apples',
    'What is 2 - 3 - 4?',
    'What is 2 - 3 - 4 = ?',
    'What is 1.5 + 2?',
    'What is 3 + 2.5?',
    '12,345 + 1 = ?',
    '3 + 4 = 7?',
    'what is 2^3 + 1',
    'What is 6 / 3?',
  ])('is not one: %s', (prompt) => {
    expect(ask(prompt)).toBeUndefined();
  });

  it('asks only the last user message; "number only" may be said there or in a system message', () => {
    const earlier = [
      { role: 'user', content: 'What is 1 + 1?' },
      { role: 'assistant', content: 'The answer is 2.' },
      { role: 'user', content: 'Thanks' },
    ];
    expect(arithmeticQuestion(earlier, messageText)).toBeUndefined();
    expect(ask('What is 1 + 1?')?.numberOnly).toBe(false);
    for (const said of [
      'Answer with the number only.',
      'Reply with only the number',
      'Just the number, please',
    ]) {
      expect([said, ask(`What is 1 + 1? ${said}`)?.numberOnly]).toEqual([said, true]);
      expect([said, ask('What is 1 + 1?', said)?.numberOnly]).toEqual([said, true]);
    }
  });

  it('is answered right with a chance that rises with the step: 0.2 + 0.2 per step, at most 0.95', () => {
    const expected = { 0: 0.2, 1: 0.4, 2: 0.6, 3: 0.8, 4: 0.95, 5: 0.95, 50: 0.95 };
    for (const [step, p] of Object.entries(expected)) expect(rightChance(Number(step))).toBeCloseTo(p, 12);
  });
});
