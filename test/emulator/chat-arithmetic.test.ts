// Arithmetic tasks through the chat APIs, as `aip rollouts` / `aip eval` send them: answered with a
// number a reward can find, right more often at later checkpoints, and sampled as OpenAI samples (the
// same request, the same reply; another `seed` or choice, another sample).

import { beforeEach, describe, expect, it } from 'vitest';
import { rightChance } from '../../src/emulator/chat/checkpoint-skill.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';

const { emu } = useEmulator();

// biome-ignore lint/suspicious/noExplicitAny: chat completions, read field by field
type Completion = any;

async function chat(body: Record<string, unknown>, api = 'training'): Promise<Completion> {
  const res = await fetch(`${emu.origin}/${api}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect([res.status, text]).toEqual([200, expect.any(String)]);
  return JSON.parse(text);
}

const user = (content: string) => [{ role: 'user', content }];
const contentOf = (c: Completion, i = 0): string => c.choices[i].message.content;
const MODEL = 'wandb-artifact:///local/p/m';

/** Ten tasks with their answers, like a task file's. */
const TASKS = Array.from({ length: 10 }, (_, i) => {
  const a = 3 + i * 17;
  const b = 40 - i * 9;
  return { prompt: `What is ${a} * ${b}? Reply with the number only.`, answer: String(a * b) };
});

beforeEach(async () => {
  const model = await emu.api('POST', '/preview/models', {
    project: 'p',
    name: 'm',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
  });
  await emu.control('POST', `/models/${model.body.id}/checkpoints`, { count: 5 });
});

describe('arithmetic tasks on the chat APIs', () => {
  it('are answered with a number: a sentence, or the number alone when the prompt asks for only that', async () => {
    const sentence = contentOf(await chat({ model: `${MODEL}:step5`, messages: user('What is 17 + 25?') }));
    expect(sentence).toMatch(/^The answer is -?\d+\.$/);
    const alone = contentOf(
      await chat({ model: `${MODEL}:step5`, messages: user('Compute 12 * 7. Reply with the number only.') }),
    );
    expect(alone).toMatch(/^-?\d+$/);
    // Base models of the Inference API answer too (as untrained checkpoints do).
    const base = await chat({ model: 'openai/gpt-oss-20b', messages: user('What is 2 + 2?') }, 'inference');
    expect(contentOf(base)).toMatch(/^The answer is -?\d+\.$/);
    expect(base.usage.completion_tokens).toBe(4);
  });

  // 600 chat requests to this worker's emulator: ~2.5 s on a quiet machine, 15 s and more on a busy one
  // (test/helpers/patience.ts). Fewer samples would make the shares too loose to compare.
  it('are answered right more often at later steps: shares near p(step) over 200 samples, rising', {
    timeout: patience(180_000),
  }, async () => {
    const shares: number[] = [];
    const rightAt = new Map<number, Set<string>>();
    for (const step of [0, 2, 5]) {
      const right = new Set<string>();
      for (const [t, task] of TASKS.entries()) {
        for (let seed = 0; seed < 20; seed++) {
          const reply = contentOf(
            await chat({ model: `${MODEL}:step${step}`, messages: user(task.prompt), seed }),
          );
          expect(reply).toMatch(/^-?\d+$/);
          if (reply === task.answer) right.add(`${t}/${seed}`);
          else {
            // A nearby wrong number, never one a `contains` reward would take for the answer.
            expect(Math.abs(Number(reply) - Number(task.answer))).toBeLessThanOrEqual(3);
            expect(reply).not.toContain(task.answer);
          }
        }
      }
      shares.push(right.size / 200);
      rightAt.set(step, right);
      expect(Math.abs(right.size / 200 - rightChance(step))).toBeLessThan(0.1);
    }
    expect(shares[0]).toBeLessThan(shares[1]!);
    expect(shares[1]).toBeLessThan(shares[2]!);
    // One sample draws alike at every step: what step 2 answers right, step 5 does too.
    expect([...rightAt.get(2)!].filter((k) => !rightAt.get(5)!.has(k))).toEqual([]);
  });

  it('resolve :latest and a bare URI to the latest checkpoint, and base models to step 0', async () => {
    const same = async (a: string, b: string, api = 'training') => {
      for (let seed = 0; seed < 30; seed++) {
        const body = { messages: user(TASKS[0]!.prompt), seed };
        expect(contentOf(await chat({ ...body, model: a }))).toBe(
          contentOf(await chat({ ...body, model: b }, api)),
        );
      }
    };
    await same(`${MODEL}:latest`, `${MODEL}:step5`);
    await same(MODEL, `${MODEL}:step5`);
    await same(`${MODEL}:step0`, 'openai/gpt-oss-20b', 'inference');
  });

  it('give the same reply to the same request, and other samples with other seeds', async () => {
    const task = { model: `${MODEL}:step2`, messages: user(TASKS[3]!.prompt), temperature: 1 };
    const first = await chat({ ...task, seed: 7, logprobs: true });
    const again = await chat({ ...task, seed: 7, logprobs: true });
    expect(again.choices).toEqual(first.choices);
    const replies = new Set<string>();
    for (let seed = 0; seed < 20; seed++) replies.add(contentOf(await chat({ ...task, seed })));
    expect(replies.has(TASKS[3]!.answer)).toBe(true);
    expect(replies.size).toBeGreaterThan(1);
    // Ordinary prompts too: a seed makes another text (without one, the text is as it has always been).
    const hello = { model: 'openai/gpt-oss-20b', messages: user('Say hello to the emulator') };
    const texts = new Set<string>();
    for (let seed = 0; seed < 5; seed++) texts.add(contentOf(await chat({ ...hello, seed }, 'inference')));
    expect(texts.size).toBe(5);
    expect(contentOf(await chat(hello, 'inference'))).toBe(
      'You asked about "Say hello to the emulator". Likely result answer clear good simple should while ' +
        'learning clear but batch run rate or value while would short simple run trajectory short there will ' +
        'simple best that better also likely trajectory after training the the context then good.',
    );
  });

  it('sample each of n choices anew (choice 0 being the reply to the same request for one)', async () => {
    const task = { model: `${MODEL}:step2`, messages: user(TASKS[5]!.prompt), seed: 3 };
    const many = await chat({ ...task, n: 16, logprobs: true });
    const replies = many.choices.map((c: Completion) => c.message.content as string);
    expect(new Set(replies).size).toBeGreaterThan(1);
    expect(replies).toContain(TASKS[5]!.answer);
    expect(contentOf(await chat(task))).toBe(replies[0]);
    // The logprobs are of the reply sampled: one entry, the number.
    expect(many.choices[0].logprobs.content.map((e: { token: string }) => e.token)).toEqual([replies[0]]);
    const words = await chat({ model: 'openai/gpt-oss-20b', messages: user('Say hello'), n: 4 }, 'inference');
    expect(new Set(words.choices.map((c: Completion) => c.message.content)).size).toBe(4);
  });

  it('let an exact-match reward work: the whole reply is the number when only the number is asked for', async () => {
    let exact = 0;
    for (let seed = 0; seed < 20; seed++) {
      const reply = contentOf(
        await chat({
          model: `${MODEL}:step5`,
          messages: [
            { role: 'system', content: 'Answer with the number only.' },
            { role: 'user', content: 'What is 123 - 456?' },
          ],
          seed,
        }),
      );
      if (reply === '-333') exact++;
    }
    expect(exact).toBeGreaterThan(15);
  });

  it('take `seed` as an integer on both APIs (422 otherwise)', async () => {
    for (const api of ['inference', 'training']) {
      const res = await fetch(`${emu.origin}/${api}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-oss-20b', messages: user('What is 1 + 1?'), seed: 1.5 }),
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: unknown }).detail).toEqual([
        {
          type: 'int_type',
          loc: ['body', 'seed'],
          msg: 'Input should be a valid integer, not the number 1.5',
        },
      ]);
    }
    expect(await chat({ model: MODEL, messages: user('What is 1 + 1?'), seed: null })).toBeDefined();
  });
});
