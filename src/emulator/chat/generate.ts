// The emulator's "model": deterministic text that depends on the conversation (the same messages,
// settings, seed and choice always give the same reply), split into word tokens, with counts for
// `usage`; arithmetic questions get an answer whose rightness depends on the checkpoint's step.

import { seededRandom, seedFrom } from '../../lib/seeded-random.js';
import { arithmeticQuestion } from './arithmetic.js';
import { answerOf, arithmeticReply } from './checkpoint-skill.js';

export const WORDS = (
  'the a model reward policy gradient step checkpoint answer question token context signal value ' +
  'learning rate batch trajectory sample group result training run loss improves quickly steadily ' +
  'carefully here there this that we it should could would can will good better best clear short ' +
  'simple useful correct likely probably indeed also then so and but or because when while after'
).split(' ');

/** Text content of a message (strings, and the text parts of content lists). */
export function messageText(message: Record<string, unknown>): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join(' ');
  }
  return '';
}

/** Rough tokens: words and punctuation marks. */
export function countTokens(text: string): number {
  return text.match(/\w+|[^\w\s]/g)?.length ?? 0;
}

/** Prompt tokens as chat APIs count them: each message's tokens plus a few for its framing. */
export function promptTokens(messages: ReadonlyArray<Record<string, unknown>>): number {
  return 3 + messages.reduce((sum, m) => sum + 4 + countTokens(messageText(m)), 0);
}

/** What one choice of a reply is sampled from. */
export interface GenerateInput {
  model: string;
  /** The model's training step: a trained checkpoint's, 0 for a base model (checkpoint-skill.ts). */
  step: number;
  messages: ReadonlyArray<Record<string, unknown>>;
  temperature: number | undefined;
  /** The request's `seed`: another seed, another sample. */
  seed: number | undefined;
  /** The choice's index: with `n` > 1 each choice is sampled anew. */
  choice: number;
}

/** Words and punctuation with the space before each ("Hello", " there", ","…). */
const tokensOf = (text: string): string[] => text.match(/\s*\S+/g) ?? [];

/**
 * The reply as tokens. An arithmetic question gets an answer, right or wrong as the step makes likely
 * (arithmetic.ts, checkpoint-skill.ts); anything else gets generated text about the last user message.
 * Choice 0 without a seed is the reply the emulator has always given: the seed and the choice join the
 * sampling's seed only when they are there.
 */
export function generateTokens(input: GenerateInput): string[] {
  const { messages, temperature, seed, choice } = input;
  const question = arithmeticQuestion(messages, messageText);
  if (question) {
    const key = { messages, temperature: temperature ?? null, seed: seed ?? null, choice };
    return tokensOf(arithmeticReply(question, answerOf(question, input.step, key)));
  }
  const random = seededRandom(seedFrom(JSON.stringify(samplingSeed(input))));
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const topic = messageText(lastUser ?? {})
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6)
    .join(' ');
  const opening = topic ? `You asked about "${topic}". ` : 'Hello. ';
  const words: string[] = [];
  const count = 12 + Math.floor(random() * 36);
  for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
  const sentence = `${words.join(' ').replace(/^\w/, (c) => c.toUpperCase())}.`;
  return tokensOf(opening + sentence);
}

/** What seeds one choice's text: the request's settings, the seed and the choice. */
function samplingSeed(input: Omit<GenerateInput, 'step'>): unknown[] {
  const { model, messages, temperature, seed, choice } = input;
  return [
    model,
    messages,
    temperature ?? null,
    ...(choice > 0 ? [choice] : []),
    ...(seed !== undefined ? [{ seed }] : []),
  ];
}
