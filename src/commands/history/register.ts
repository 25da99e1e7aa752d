// `aip history`: bare, it lists (its `list` verb is the default); show, on, off, prune, path.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerList } from './list.js';
import { registerPath } from './path.js';
import { registerPrune } from './prune.js';
import { registerShow } from './show.js';
import { registerSwitch } from './switch.js';

export function registerHistory(program: Parent, ctx: Context): void {
  const history = examples(
    program.command('history').description('what aip did on this machine: commands, ids created, tokens'),
    ['aip history list --since 7d', 'aip history show 42', 'aip history prune --older-than 30d'],
  );
  verbs(history, () => {
    registerList(history, ctx);
    registerShow(history, ctx);
    registerSwitch(history, ctx);
    registerPrune(history, ctx);
    registerPath(history, ctx);
  });
}
