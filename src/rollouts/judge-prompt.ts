// What `--reward judge:MODEL` asks its judge, and how it reads the answer: the pure half of the judge
// (judge.ts sends). The judge is asked for structured output (`response_format` with a JSON schema, as
// the Inference API documents it), so that an answer is a document to check, not prose to scrape:
//   one reply:   {"explanation": "…", "score": 0.8}
//   one group:   {"reply_1": {"explanation", "score"}, "reply_2": {…}, …}, one key per member, so
//                that any instance of the schema scores every member once (an array could leave one
//                out or score one twice).
// The answer is untrusted all the same: a server may not enforce the schema (or enforce only part of
// it), so every field is checked here, by own keys only, and a score must be a finite number in
// [0, 1]. What does not pass fails the trajectory with the reason, as a reward command's garbage does.

import { isObject } from '../lib/json.js';
import { oneLine } from '../output/text.js';
import type { RewardResult } from './reward-command.js';
import type { Task } from './tasks.js';

/** The rubric when --rubric gives none. */
export const DEFAULT_RUBRIC = [
  '- A reply that accomplishes what the task asks scores near 1; one that does not scores near 0.',
  "- When the task gives a reference answer, a reply that agrees with it accomplishes the task; the reply's wording may differ.",
  '- Partial progress earns partial credit; a confident wrong answer earns none.',
].join('\n');

/** The judge's raw answer kept in a trajectory's metadata, at most this many characters. */
export const MAX_KEPT_JUDGEMENT = 16 * 1024;

/** One member of a judged group: its reply as the assistant's message (content, tool calls). */
export interface JudgedReply {
  message: Record<string, unknown>;
}

const item = {
  type: 'object',
  properties: {
    explanation: { type: 'string' },
    score: { type: 'number', minimum: 0, maximum: 1 },
  },
  required: ['explanation', 'score'],
  additionalProperties: false,
} as const;

/** The key of member `i` (0-based) of a judged group. */
export const memberKey = (i: number) => `reply_${i + 1}`;

/** The response_format of a judgement: of one reply, or of `members` replies at once. */
export function judgementFormat(members?: number): {
  type: 'json_schema';
  json_schema: { name: string; strict: boolean; schema: Record<string, unknown> };
} {
  const schema =
    members === undefined
      ? item
      : {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: members }, (_, i) => [memberKey(i), item])),
          required: Array.from({ length: members }, (_, i) => memberKey(i)),
          additionalProperties: false,
        };
  return {
    type: 'json_schema',
    json_schema: { name: members === undefined ? 'judgement' : 'group_judgement', strict: true, schema },
  };
}

const ONE = [
  'You are a judge. You score one reply of an AI assistant to a task, from 0 (worst) to 1 (best), by the rubric below.',
  'The task and the reply are given as JSON: "task" is the conversation the assistant was given (and "tools" the tools it could call), "reply" its answer, and "reference" the expected answer, when there is one.',
  'Explain your judgement in a few sentences, then give the score.',
];

const GROUP = [
  'You are a judge. You score several replies of an AI assistant to the same task, each from 0 (worst) to 1 (best), by the rubric below, comparing them with each other: a better reply gets a higher score, a slightly better one a slightly higher score.',
  'The task and the replies are given as JSON: "task" is the conversation the assistant was given (and "tools" the tools it could call), "replies" its answers, each under its own key, and "reference" the expected answer, when there is one.',
  'For every reply, under its key, explain your judgement in a sentence or two, then give its score.',
];

/** The messages of a judge request: the instructions with the rubric, then the task and the replies. */
export function judgeMessages(
  task: Task,
  replies: readonly JudgedReply[],
  rubric: string,
  group: boolean,
): Array<{ role: 'system' | 'user'; content: string }> {
  const shown: Record<string, unknown> = { task: task.messages };
  if (task.tools) shown.tools = task.tools;
  if (task.reference !== undefined) shown.reference = task.reference;
  if (group) shown.replies = Object.fromEntries(replies.map((r, i) => [memberKey(i), r.message]));
  else shown.reply = replies[0]!.message;
  return [
    { role: 'system', content: [...(group ? GROUP : ONE), '', 'Rubric:', rubric].join('\n') },
    { role: 'user', content: JSON.stringify(shown, null, 2) },
  ];
}

/** What a judge's chat completion came to: its text, or why it has none. */
export interface JudgeAnswer {
  content: string | null;
  refusal?: string | null;
  finishReason?: string | null;
}

const short = (text: string) => JSON.stringify(oneLine(text, 200));

/** The kept form of a judgement: the judge's own text, cut at MAX_KEPT_JUDGEMENT. */
const kept = (text: string) =>
  text.length > MAX_KEPT_JUDGEMENT ? `${text.slice(0, MAX_KEPT_JUDGEMENT)}…` : text;

/** The score of one judgement item, or why it is none. */
function readItem(value: unknown, where: string): { score: number } | { reason: string } {
  if (!isObject(value) || !Object.hasOwn(value, 'score'))
    return { reason: `the judge's answer has no score${where}` };
  const { score } = value;
  if (typeof score !== 'number' || !Number.isFinite(score))
    return {
      reason: `the judge's score${where} is ${oneLine(JSON.stringify(score) ?? 'nothing', 200)}, not a number`,
    };
  if (score < 0 || score > 1) return { reason: `the judge's score${where} is ${score}, outside 0 to 1` };
  return { score: score + 0 };
}

/** The reward of a judgement item: its score, kept with the judge's words in the trajectory. */
function rewardOf(score: number, judgement: string): RewardResult {
  return {
    ok: true,
    scored: { reward: score, metrics: { judge_score: score }, metadata: { judgement: kept(judgement) } },
  };
}

/** The JSON document of an answer, or why there is none (then every member fails with it). */
function documentOf(answer: JudgeAnswer): { value: Record<string, unknown> } | { reason: string } {
  if (answer.refusal) return { reason: `the judge refused: ${short(answer.refusal)}` };
  const text = answer.content ?? '';
  if (answer.finishReason === 'length')
    return { reason: "the judge's answer was cut off (finish_reason length) before its JSON ended" };
  if (text.trim() === '') return { reason: 'the judge answered nothing' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: `the judge answered ${short(text)}, not the JSON its schema asks for` };
  }
  if (!isObject(value)) return { reason: `the judge answered ${short(text)}, not a JSON object` };
  return { value };
}

/** The reward of one reply from its judgement. */
export function readJudgement(answer: JudgeAnswer): RewardResult {
  const document = documentOf(answer);
  if ('reason' in document) return { ok: false, reason: document.reason };
  const read = readItem(document.value, '');
  return 'reason' in read ? { ok: false, reason: read.reason } : rewardOf(read.score, answer.content!);
}

/** The rewards of `members` replies from one judgement of their group, in member order. */
export function readGroupJudgement(answer: JudgeAnswer, members: number): RewardResult[] {
  const document = documentOf(answer);
  if ('reason' in document)
    return Array.from({ length: members }, () => ({ ok: false, reason: document.reason }));
  const { value } = document;
  return Array.from({ length: members }, (_, i) => {
    const key = memberKey(i);
    const entry = Object.hasOwn(value, key) ? value[key] : undefined;
    const read = readItem(entry, ` for ${key}`);
    return 'reason' in read
      ? { ok: false, reason: read.reason }
      : rewardOf(read.score, JSON.stringify(entry));
  });
}
