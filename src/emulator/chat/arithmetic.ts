// Arithmetic questions the emulated model can answer right or wrong: the tasks of an RL loop on the
// emulator (`aip rollouts`, `aip train rl`, `aip eval`), whose rewards can check the number in the reply.
// One operation on two integers, asked the way a task file would ask it: "What is 17 + 25?",
// "Compute 12 * 7. Reply with the number only.", "-3 × 4 = ?", "what's 9 minus 12". Anything else is
// not a question here, so that ordinary prompts get the ordinary generated text.

export interface ArithmeticQuestion {
  /** The right answer (BigInt: a product of two 12-digit numbers is past Number's exact integers). */
  answer: bigint;
  /** The prompt asks for the number and nothing else: the reply is then exactly the number. */
  numberOnly: boolean;
}

// An integer, possibly negative (ASCII or Unicode minus), possibly in parentheses: 7, -7, (−7).
const NUM = String.raw`\(\s*[-−]?\d{1,12}\s*\)|[-−]?\d{1,12}`;
const OP = String.raw`\+|-|−|\*|×|·|x|X|\bplus\b|\bminus\b|\btimes\b|\bmultiplied\s+by\b`;
const EXPR = String.raw`(${NUM})\s*(${OP})\s*(${NUM})`;
// Asked with a verb of asking before it, or as an equation to complete ("-3 × 4 = ?") that is not
// the tail of a longer expression or a number ("2 - 3 - 4 = ?", "1.5 + 2 = ?", "12,345 + 1 = ?");
// never followed by more of an expression ("1 + 2 + 3", "2 * 3^2", "3 + 2.5"): not simple questions.
const VERB = String.raw`\b(?:what\s+is|what's|whats|how\s+much\s+is|compute|calculate|evaluate|solve)\s*:?\s*`;
const NOT_A_TAIL = String.raw`(?<![\w.,)]|[-−+*×·/^%=(]\s*)`;
const NOT_FOLLOWED = String.raw`(?!\s*(?:[-−+*×·/^%=]|\d|\.\d|x\s*\d))`;
const ASKED = new RegExp(`(?:${VERB}${EXPR}|${NOT_A_TAIL}${EXPR}\\s*=\\s*\\??)${NOT_FOLLOWED}`, 'i');

const NUMBER_ONLY =
  /\b(?:(?:the\s+)?number\s+only|only\s+(?:the|a|with\s+the)\s+(?:number|answer|result)|just\s+(?:the|a)\s+(?:number|answer|result)|(?:answer|result)\s+only|nothing\s+(?:else|but\s+the\s+(?:number|answer)))\b/i;

function integer(text: string): bigint {
  return BigInt(text.replace(/[()\s]/g, '').replace('−', '-'));
}

function apply(a: bigint, op: string, b: bigint): bigint {
  const o = op.toLowerCase().replace(/\s+/g, ' ');
  if (o === '+' || o === 'plus') return a + b;
  if (o === '-' || o === '−' || o === 'minus') return a - b;
  return a * b;
}

type Message = Record<string, unknown>;

/**
 * The question the last user message asks, if it is one. "Number only" may be said there or in a
 * system (or developer) message, where a task set usually puts its instructions.
 */
export function arithmeticQuestion(
  messages: ReadonlyArray<Message>,
  textOf: (message: Message) => string,
): ArithmeticQuestion | undefined {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  if (!lastUser) return undefined;
  const text = textOf(lastUser);
  const m = ASKED.exec(text);
  if (!m) return undefined;
  // The first alternative (a verb, then the expression) fills groups 1-3, the second 4-6.
  const [a, op, b] = m[1] !== undefined ? [m[1], m[2]!, m[3]!] : [m[4]!, m[5]!, m[6]!];
  const instructions = messages.filter((x) => x.role === 'system' || x.role === 'developer').map(textOf);
  return {
    answer: apply(integer(a), op, integer(b)),
    numberOnly: [text, ...instructions].some((t) => NUMBER_ONLY.test(t)),
  };
}
