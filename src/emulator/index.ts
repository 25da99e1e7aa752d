// The emulator's public entry: what the rest of aip (the `aip emulator` commands, the tests and their
// helpers) uses of it. Nothing outside src/emulator/ imports any other file in it
// (test/architecture/emulator-boundary.test.ts checks). What the emulator shares with the rest but
// does not own lives outside it: its default address, key and team (src/settings/local-platform.ts) and seeded
// randomness (src/lib/seeded-random.ts). The emulator's own files import each other directly, never this.
//
// - startEmulator and its options and result: an emulator in-process, as `aip emulator`, the tests
//   and the benchmarks start it; EmulatorState, FaultStore, RequestLog, RequestRecord: what the
//   running one holds.
// - defaultStateDir, DB_FILE, openSqlitePersistence, SQLITE_CHOICE_ENV: its durable state, where it is
//   kept by default, the store `aip emulator reset` empties (with EmulatorState) when no emulator is
//   running, and the hidden variable that picks its SQLite binding.
// - seedDemo: `aip emulator --demo`.

export { SQLITE_CHOICE_ENV } from '../lib/sqlite/choose-sqlite.js';
export { demoSeeds, seedDemo } from './demo.js';
export { DB_FILE, openSqlitePersistence } from './durable/sqlite.js';
export { defaultStateDir } from './durable/state-dir.js';
export type { FaultStore } from './faults.js';
export { RequestLog, type RequestRecord } from './recorder.js';
export { type EmulatorOptions, type RunningEmulator, startEmulator } from './server.js';
export { EmulatorState } from './state.js';
