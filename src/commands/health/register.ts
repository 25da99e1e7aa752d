import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

export function registerHealth(program: Command, ctx: Context): void {
  const health = program
    .command('health')
    .description('check that the training, inference and trace endpoints answer (no key needed)')
    .action(async () => {
      const { runHealth } = await import('./health.js');
      await runHealth(ctx);
    });
  examples(health, ['aip health', 'aip health --json', 'aip --profile local health']);

  const systemCheck = program
    .command('system-check')
    .description(
      "show the Training API's component checks: api, database, cpu_queue, gpu_queue (exit 1 when one fails)",
    )
    .action(async () => {
      const { runSystemCheck } = await import('./system-check.js');
      await runSystemCheck(ctx);
    });
  examples(systemCheck, ['aip system-check', 'aip system-check --json | jq .database']);
}
