// RL tasks the emulator's models answer (its arithmetic, src/emulator/chat/): sums, each with its
// reference, for the tests of rollouts, train rl and their reports.

import { writeFileSync } from 'node:fs';

/** `count` sums (ids sum-0, sum-1, …) written to `file` as JSON Lines; the file's path. */
export function writeArithmeticTasks(file: string, count = 8): string {
  const lines = Array.from({ length: count }, (_, i) => {
    const [a, b] = [11 + i * 7, 23 + i * 5];
    return JSON.stringify({
      id: `sum-${i}`,
      messages: [{ role: 'user', content: `What is ${a} + ${b}? Reply with the number only.` }],
      reference: String(a + b),
    });
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
