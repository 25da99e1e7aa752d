// aip's data directory, as each system has them (XDG_DATA_HOME on Linux and other Unixes, Application
// Support on macOS, LOCALAPPDATA on Windows); AIP_DATA_DIR overrides it, as AIP_CONFIG_DIR does the
// config's. The emulator's state (emulator/) and the history (history/) live under it.

import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

export function aipDataDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.AIP_DATA_DIR) return env.AIP_DATA_DIR;
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'aip');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'aip');
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'aip');
}
