// A Context that sends nothing: a unit test of something that holds a Context (a chat session, an
// openai client's settings) without a server. Its transport refuses every request, its sleep returns
// at once, and its config directory is a fresh temp one (removed after the test).

import { EventEmitter } from 'node:events';
import { Context } from '../../src/context.js';
import type { IO } from '../../src/output/io.js';
import { tempConfigDir } from './cli.js';
import { fakeIO } from './io.js';

export function offlineContext(env: Record<string, string | undefined> = {}, io: IO = fakeIO().io): Context {
  return new Context({
    env: { AIP_CONFIG_DIR: tempConfigDir(), AIP_KEYRING: 'off', ...env },
    io,
    transport: async () => {
      throw new Error('nothing is sent');
    },
    sleep: async () => undefined,
    random: () => 0.5,
    signals: new EventEmitter(),
  });
}
