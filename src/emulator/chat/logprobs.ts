// Per-token log probabilities in the OpenAI shape (`choices[].logprobs.content`), for `logprobs: true`.
// RL on this platform trains on sampled choices that carry them, so they must be consistent with what
// was sampled: one entry per generated token, the tokens joining up to the reply's text, each entry's
// own token among its top alternatives where it ranks, and probabilities that never add up past 1.
// Deterministic: the same reply gives the same numbers.

import { seededRandom, seedFrom } from '../../lib/seeded-random.js';
import { WORDS } from './generate.js';

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

const bytesOf = (token: string) => [...Buffer.from(token, 'utf8')];
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** Alternatives to `token`, written the same way (a leading space or not), never `token` itself. */
function alternativesTo(token: string, count: number, random: () => number): string[] {
  const space = token.startsWith(' ') ? ' ' : '';
  const out: string[] = [];
  let i = Math.floor(random() * WORDS.length);
  while (out.length < count) {
    const candidate = `${space}${WORDS[i++ % WORDS.length]}`;
    if (candidate !== token && !out.includes(candidate)) out.push(candidate);
    if (i > WORDS.length * 2) break;
  }
  return out;
}

/**
 * One entry per token. The sampled token's probability lies in [0.08, 1); the rest of the mass is
 * shared by alternatives, each half the one before, so the candidates together stay below 1.
 * `top` (0-20) alternatives are listed, most likely first, as OpenAI lists them.
 */
export function tokenLogprobs(tokens: readonly string[], seedText: string, top: number): TokenLogprob[] {
  const random = seededRandom(seedFrom(`logprobs:${seedText}`));
  return tokens.map((token) => {
    const p = 0.08 + 0.919 * random() ** 0.35;
    const rest = 1 - p;
    const candidates: TopLogprob[] = [{ token, logprob: round(Math.log(p)), bytes: bytesOf(token) }];
    alternativesTo(token, Math.max(top, 1), random).forEach((alt, j) => {
      candidates.push({ token: alt, logprob: round(Math.log(rest * 0.5 ** (j + 1))), bytes: bytesOf(alt) });
    });
    const ranked = [...candidates].sort((a, b) => b.logprob - a.logprob);
    return { ...candidates[0]!, top_logprobs: ranked.slice(0, top) };
  });
}
