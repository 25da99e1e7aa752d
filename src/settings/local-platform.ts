// The local platform: where `aip emulator` listens and which key and team it answers with unless told
// otherwise. Settings' built-in `local` profile points at exactly this, so `aip --profile local …`
// works with no setup; the emulator and the emulator commands start from it. It lives outside
// src/emulator/ so that settings need not import the emulator to know its address.

export const EMULATOR_HOST = '127.0.0.1';
export const EMULATOR_DEFAULT_PORT = 4010;
/** Not a secret: it only opens the local emulator, and `aip emulator` prints it at start. */
export const EMULATOR_DEFAULT_KEY = 'aip-emulator-local-key';
/** The team (entity) the emulator's keys belong to: the `local` in the local profile's `local/demo`. */
export const EMULATOR_DEFAULT_TEAM = 'local';

/** The three interfaces under one origin, as product.md section 6 lays them out. */
export function emulatorUrls(origin: string): { base: string; inference: string; trace: string } {
  return { base: `${origin}/training/v1`, inference: `${origin}/inference/v1`, trace: `${origin}/trace` };
}
