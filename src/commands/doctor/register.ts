import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

export function registerDoctor(program: Command, ctx: Context): void {
  const doctor = program
    .command('doctor')
    .description(
      'check everything that can explain a failure: Node, the config file and its permissions, the key, the project, each interface, the clock, proxies (exit 1 when a check fails)',
    )
    .action(async () => {
      const { runDoctor } = await import('./doctor.js');
      await runDoctor(ctx);
    });
  examples(doctor, [
    'aip doctor',
    'aip doctor --json | jq ".[] | select(.status != \\"ok\\")"',
    'aip --profile local doctor',
  ]);
}
