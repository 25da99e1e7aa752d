// `aip doctor`: its help and examples; the code that runs is doctor.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(program: Parent) {
  const doctor = program
    .command('doctor')
    .description(
      'check everything that can explain a failure: Node, the config file and its permissions, the key, the project, each interface, the clock, proxies (exit 1 when a check fails)',
    );
  return examples(doctor, [
    'aip doctor',
    'aip doctor --json | jq ".[] | select(.status != \\"ok\\")"',
    'aip --profile local doctor',
  ]);
}

export function registerDoctor(program: Parent, ctx: Context): void {
  define(program).action(async () => {
    const { runDoctor } = await import('./doctor.run.js');
    await runDoctor(ctx);
  });
}
