import type { Context } from '../../context.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerReset } from './reset.js';
import { registerStart } from './start.js';
import { registerStatus } from './status.js';
import { registerStop } from './stop.js';

export function registerEmulator(program: Parent, ctx: Context): void {
  const emulator = registerStart(program, ctx);
  verbs(emulator, () => {
    registerStop(emulator, ctx);
    registerStatus(emulator, ctx);
    registerReset(emulator, ctx);
  });
}
