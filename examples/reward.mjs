#!/usr/bin/env node
// A reward command for `aip rollouts`, `aip train rl` and `aip eval` (--reward-cmd "node examples/reward.mjs").
// aip writes one trajectory to stdin as JSON: {"task_id", "reference", "metadata", "reply", "trajectory"};
// this prints {"reward": …, "metrics": {…}} on stdout. Here: 1 when the reply is the reference number,
// 0.1 when it is some other number (the format was right), 0 otherwise.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
});
process.stdin.on('end', () => {
  const { reference, reply } = JSON.parse(input);
  const answer = reply.trim();
  const isNumber = /^-?\d+$/.test(answer);
  const reward = answer === String(reference) ? 1 : isNumber ? 0.1 : 0;
  process.stdout.write(
    `${JSON.stringify({ reward, metrics: { is_number: isNumber, length: answer.length } })}\n`,
  );
});
