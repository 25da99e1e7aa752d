// Whether this machine keeps a history, and whether with bodies (chat prompts and replies, sampled
// trajectories): history/settings.json, written by `aip history on|off`; AIP_HISTORY (off, on, bodies)
// wins over it, for one shell or a CI job. Kept by default, bodies not, as llm does.
//
// Read once, when a command first talks to the platform; a file that cannot be read or parsed is as
// none (the default), with the reason for the one warning the recorder gives.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject } from '../lib/json.js';
import { SWITCH_FILE } from './paths.js';

type Env = Record<string, string | undefined>;

export interface HistorySwitch {
  enabled: boolean;
  bodies: boolean;
  /** Why the file was not used, when it exists and could not be. */
  problem?: string;
}

export const HISTORY_ENV = 'AIP_HISTORY';

/** What settings.json holds: `history.bodies` is the name users are told (docs, `aip history on`). */
export interface SwitchFile {
  enabled: boolean;
  'history.bodies': boolean;
}

export function readSwitchFile(dir: string): { value?: SwitchFile; problem?: string } {
  const file = join(dir, SWITCH_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No file, or no directory to hold one (the journal's write then says what is wrong).
    return code === 'ENOENT' || code === 'ENOTDIR' ? {} : { problem: `cannot read ${file}: ${code}` };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      isObject(parsed) &&
      typeof parsed.enabled === 'boolean' &&
      typeof parsed['history.bodies'] === 'boolean'
    )
      return { value: { enabled: parsed.enabled, 'history.bodies': parsed['history.bodies'] } };
  } catch {
    // reported below
  }
  return { problem: `${file} is not a history settings file (fix it, or run aip history on)` };
}

export function historySwitch(env: Env, dir: string): HistorySwitch {
  const forced = env[HISTORY_ENV]?.trim().toLowerCase();
  if (forced === 'off' || forced === '0' || forced === 'false') return { enabled: false, bodies: false };
  if (forced === 'bodies') return { enabled: true, bodies: true };
  const { value, problem } = readSwitchFile(dir);
  if (forced === 'on' || forced === '1' || forced === 'true')
    return { enabled: true, bodies: value?.['history.bodies'] ?? false, problem };
  return { enabled: value?.enabled ?? true, bodies: value?.['history.bodies'] ?? false, problem };
}
