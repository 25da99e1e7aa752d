// The emulator's "model": deterministic text that depends on the conversation (the same messages and
// settings always give the same reply), split into word tokens, with counts for `usage`.

import { seededRandom, seedFrom } from '../../lib/seeded-random.js';

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

/**
 * The reply as tokens: each a word with the space before it ("Hello", " there", ","…). With `n` > 1
 * each choice is sampled anew (choice 0 is the reply a request for one choice gets).
 */
export function generateTokens(
  model: string,
  messages: ReadonlyArray<Record<string, unknown>>,
  temperature: number | undefined,
  choice = 0,
): string[] {
  const seed = [model, messages, temperature ?? null, ...(choice > 0 ? [choice] : [])];
  const random = seededRandom(seedFrom(JSON.stringify(seed)));
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
  return (opening + sentence).match(/\s*\S+/g) ?? [];
}
