import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerLogin } from './login.js';
import { registerLogout } from './logout.js';
import { registerStatus } from './status.js';
import { registerToken } from './token.js';

export function registerAuth(program: Parent, ctx: Context): void {
  const auth = examples(
    program.command('auth').description('store, check, print or remove the API key of a profile'),
    ['aip auth login', 'aip auth status'],
  );
  verbs(auth, () => {
    registerLogin(auth, ctx);
    registerStatus(auth, ctx);
    registerLogout(auth, ctx);
    registerToken(auth, ctx);
  });
}
