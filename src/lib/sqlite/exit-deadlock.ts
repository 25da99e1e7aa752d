// Node's shutdown deadlock (nodejs/node#54918, open; not fixed in Node 20, which is end of life): when
// the event loop has ended, the main thread waits in NodePlatform::DrainTasks for V8's background
// tasks to finish, and a background optimizing compile that runs out of heap waits for a garbage
// collection only the main thread can run. Neither moves again; the process hangs after it has
// printed its result. A short command that has driven the WebAssembly SQLite (the history's fold and
// queries) is where it was met: twice in the README tour on Node 20, gdb showing a TurboFan job in
// CollectionBarrier::AwaitCollectionBackground while the main thread drained.
//
// Those jobs exist only while V8 decides to optimize, and V8 reads its --turbofan and --maglev flags
// at each such decision, so turning them off leaves no optimizing job to wait on: the code already
// optimized stays so, and the rest runs in V8's baseline tiers (the SQLite itself is WebAssembly, which
// these flags do not touch). Its cost, measured: README, "Where it runs". Only for a process
// that ends soon after: `aip history`, `aip usage`, and a recorded command's tidy at its very end.

import { setFlagsFromString } from 'node:v8';

let stopped = false;

/** No more optimizing compiles in this process (see above); idempotent. */
export function stopOptimizingCompiles(): void {
  if (stopped) return;
  stopped = true;
  setFlagsFromString('--no-turbofan');
  setFlagsFromString('--no-maglev');
}
