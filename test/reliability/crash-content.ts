// The two full versions of each file that the crash-safety writers alternate between (crash-writer.ts
// writes them, crash-safety.test.ts checks the file is exactly one of them). Each is 1.5 MB, mostly in
// long strings, so that the time of a write goes to writing (not to JSON) and a kill lands in the
// middle of it often.

export type Version = 'a' | 'b';
export const VERSIONS: readonly Version[] = ['a', 'b'];

const COUNT = 200;
const LONG = 7500;

/** A config file: 200 profiles, every value naming the version. */
export function configVersion(v: Version): { profiles: Record<string, Record<string, string>> } {
  const profiles: Record<string, Record<string, string>> = {};
  for (let i = 0; i < COUNT; i++) {
    profiles[`p${i}`] = {
      project: `team-${v}/project-${i}`,
      'base-url': `https://${v}.example.com/v1`,
      'default-model': `${v}-model-${i}-`.padEnd(LONG, v),
    };
  }
  return { profiles };
}

/** models.json: 200 remembered models. */
export function recordVersion(v: Version): { models: Array<Record<string, string>> } {
  const models = [];
  for (let i = 0; i < COUNT; i++) {
    const hex = i.toString(16).padStart(12, '0');
    models.push({
      id: `${v === 'a' ? 'aaaaaaaa' : 'bbbbbbbb'}-0000-4000-8000-${hex}`,
      entity: 'local',
      project: 'demo',
      name: `${v}-model-${i}-`.padEnd(LONG, v),
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      base_url: `http://127.0.0.1:9/${v}/v1`,
      created_at: `2025-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    });
  }
  return { models };
}

/** A chat transcript: 200 messages of 8,000 characters (long ones: the time goes to writing). */
export function transcriptVersion(v: Version): Array<{ role: 'user' | 'assistant'; content: string }> {
  return Array.from({ length: 200 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `${v} message ${i} `.padEnd(8000, v),
  }));
}

/** A detached emulator's record; its log path is padded to 1.5 MB to make the write long. */
export function daemonVersion(v: Version, origin: string) {
  return {
    pid: v === 'a' ? 4242 : 4343,
    port: Number(new URL(origin).port),
    origin,
    log_file: `/var/log/${v}/emulator.log`.padEnd(1_500_000, v),
    started_at: v === 'a' ? '2025-01-01T00:00:00.000Z' : '2025-02-02T00:00:00.000Z',
  };
}

/** The batches one spool holds: 12 × 128 KiB, batch i filled with byte i. */
export const SPOOL_BATCHES = 12;
export const SPOOL_BATCH_BYTES = 128 * 1024;
