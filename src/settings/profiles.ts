// Built-in profiles: `default` is the hosted platform (the built-in defaults of keys.ts), `local` is
// the emulator on its default address with its default key, `forge` is the platform's second public
// host, CoreWeave Forge. A stored profile of the same name overrides them value by value.

import { UsageError } from '../errors/errors.js';
import { dictionary, hasOwnKey, ownValue } from '../lib/own.js';
import type { ProfileData } from './config-file.js';
import {
  EMULATOR_DEFAULT_KEY,
  EMULATOR_DEFAULT_PORT,
  EMULATOR_HOST,
  emulatorUrls,
} from './local-platform.js';

export const DEFAULT_PROFILE = 'default';
export const LOCAL_PROFILE = 'local';
export const FORGE_PROFILE = 'forge';

/**
 * CoreWeave Forge's Training API (api-contract.md §1.1). Only the base URL differs: its docs give the
 * same Inference API host, and name no trace host of their own, so both stay the built-in defaults.
 */
const FORGE_BASE_URL = 'https://forge.coreweave.com/api/training/v1';

const localUrls = emulatorUrls(`http://${EMULATOR_HOST}:${EMULATOR_DEFAULT_PORT}`);

/** Without a prototype: a name is a built-in profile only if it is one of these (see lib/own.ts). */
export const BUILTIN_PROFILES: Readonly<Record<string, Readonly<ProfileData>>> = dictionary({
  [DEFAULT_PROFILE]: {},
  [LOCAL_PROFILE]: {
    'base-url': localUrls.base,
    'inference-url': localUrls.inference,
    'trace-url': localUrls.trace,
    project: 'local/demo',
    'api-key': EMULATOR_DEFAULT_KEY,
  },
  [FORGE_PROFILE]: { 'base-url': FORGE_BASE_URL },
});

/** Every profile there is: the built-in ones, then those only in the config file. */
export function profileNames(stored: Readonly<Record<string, unknown>>): string[] {
  return [...new Set([...Object.keys(BUILTIN_PROFILES), ...Object.keys(stored)])];
}

export function isBuiltinProfile(name: string): boolean {
  return hasOwnKey(BUILTIN_PROFILES, name);
}

/** The built-in profile of this name; undefined for any other name (`constructor` included). */
export function builtinProfile(name: string): Readonly<ProfileData> | undefined {
  return ownValue(BUILTIN_PROFILES, name);
}

export function checkProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new UsageError(`invalid profile name "${name}": use letters, digits, '.', '_' and '-'`);
  }
  return name;
}
