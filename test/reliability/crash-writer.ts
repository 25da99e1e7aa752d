// A write loop for crash-safety.test.ts, bundled by the test (esbuild) and run as a real process that
// the test kills with SIGKILL: it writes one file through aip's own write path, alternating between
// the two versions of crash-content.ts, and prints `w <ms>` after every complete write.
//
//   node crash-writer.mjs <kind> <file> [origin]
//
// kind: config | record | transcript | daemon | spool (for the spool, <file> is unused: the spool
// lives in the OS temporary directory, TMPDIR).

import { saveTranscript } from '../../src/chat/transcript.js';
import { writeDaemonState } from '../../src/commands/emulator/daemon.js';
import { readModelRecord } from '../../src/models/local-record.js';
import type { ConfigData } from '../../src/settings/config-file.js';
import { updateConfig, updateJsonFile } from '../../src/settings/json-store.js';
import { Spool } from '../../src/traces/send/spool.js';
import {
  configVersion,
  daemonVersion,
  recordVersion,
  SPOOL_BATCH_BYTES,
  SPOOL_BATCHES,
  transcriptVersion,
  VERSIONS,
} from './crash-content.js';

const [kind, file = '', origin = 'http://127.0.0.1:9'] = process.argv.slice(2);

function writer(): () => Promise<void> | void {
  switch (kind) {
    case 'config': {
      const data = VERSIONS.map(configVersion);
      let n = 0;
      return async () => {
        const next = data[n++ % 2]!;
        await updateConfig(file, (config: ConfigData) => {
          config.profiles = next.profiles;
        });
      };
    }
    case 'local-record': {
      const data = VERSIONS.map(recordVersion);
      let n = 0;
      return async () => {
        const next = data[n++ % 2]!;
        await updateJsonFile(file, readModelRecord, (record) => {
          record.models = next.models as never;
        });
      };
    }
    case 'transcript': {
      const data = VERSIONS.map(transcriptVersion);
      let n = 0;
      return () => saveTranscript(file, data[n++ % 2]!);
    }
    case 'daemon': {
      const data = VERSIONS.map((v) => daemonVersion(v, origin));
      let n = 0;
      return () => writeDaemonState(file, data[n++ % 2]!);
    }
    case 'spool': {
      const batches = Array.from({ length: SPOOL_BATCHES }, (_, i) =>
        new Uint8Array(SPOOL_BATCH_BYTES).fill(i),
      );
      return () => {
        // Nothing in memory: every batch goes to the spool's file.
        const spool = new Spool(0);
        const slots = batches.map((b) => spool.put(b));
        for (const [i, slot] of slots.entries()) {
          const back = spool.get(slot);
          if (back.length !== SPOOL_BATCH_BYTES || back[0] !== i || back[back.length - 1] !== i)
            throw new Error(`spool: batch ${i} came back wrong`);
        }
        spool.close();
      };
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

const write = writer();
for (;;) {
  const started = performance.now();
  await write();
  process.stdout.write(`w ${Math.round(performance.now() - started)}\n`);
}
