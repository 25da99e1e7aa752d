// The tee's store: requests appended by the writer (real encoded OTLP requests), folded into
// traces.db by a reader; spans kept once; the bound; torn tails and a writer killed mid-append; files
// ended (closed, rotated) or of a gone writer removed once folded; a writer that cannot write warns
// once and keeps nothing more.

import { appendFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalHostTag } from '../../../src/history/paths.js';
import { END_RECORD, frameRecord } from '../../../src/traces/store/framing.js';
import { journalDirOf, tracesDir } from '../../../src/traces/store/paths.js';
import {
  lastSeq,
  spansAfter,
  spansOfTrace,
  spansSince,
  traceIdsWithPrefix,
} from '../../../src/traces/store/query.js';
import { tracesDbFile, withTraceStore } from '../../../src/traces/store/store.js';
import { openTeeWriter } from '../../../src/traces/store/writer.js';
import { groupTraces } from '../../../src/traces/view/model.js';
import { tempDir } from '../../helpers/temp.js';
import { agentTurn, hexId, request, span, str } from './requests.js';

/** A pid no process has (above Linux's pid_max): a file of a writer that is gone. */
const DEAD_PID = 4_194_304 + 23;

function envFor() {
  return { AIP_DATA_DIR: tempDir('aip-traces-'), AIP_EMULATOR_SQLITE: 'wasm' };
}

type Env = ReturnType<typeof envFor>;

const spanCount = async (env: Env) =>
  withTraceStore(env, (db) => Number(db.prepare('SELECT count(*) AS n FROM spans').get()?.n));

let made = 0;

/** A journal file as a gone writer left it: `records` whole, then `tail` bytes as they are. */
function goneWriterFile(env: Env, records: Uint8Array[], tail: Uint8Array = new Uint8Array()): string {
  const dir = journalDirOf(env);
  const file = join(
    dir,
    `${Date.now()}-${DEAD_PID}-${journalHostTag(hostname())}-${(++made).toString(16).padStart(6, '0')}.otlp`,
  );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, Buffer.concat([...records.map((r) => frameRecord(r)), tail]), { mode: 0o600 });
  return file;
}

describe('the tee writer and the store', () => {
  it('keeps what is appended, readable as traces, in private files', async () => {
    const env = envFor();
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(1)));
    writer.append(request(agentTurn(2, { toolError: true })));
    expect(statSync(writer.file!).mode & 0o777).toBe(0o600);
    expect(statSync(journalDirOf(env)).mode & 0o777).toBe(0o700);
    expect(statSync(tracesDir(env)).mode & 0o777).toBe(0o700);
    const groups = await withTraceStore(env, (db) => groupTraces(spansSince(db, undefined)));
    expect(groups!.map((g) => g.summary)).toEqual([
      expect.objectContaining({
        trace_id: hexId(2, 16),
        root: 'invoke_agent support',
        spans: 3,
        errors: 1,
        duration_ms: 500,
        // The agent's own usage is the sum of its calls': counted once.
        input_tokens: 120,
        output_tokens: 30,
        models: ['openai/gpt-oss-20b'],
        services: ['agent'],
      }),
      expect.objectContaining({ trace_id: hexId(1, 16), errors: 0, start: '2026-11-20T10:00:01.000Z' }),
    ]);
    expect(statSync(tracesDbFile(env)).mode & 0o777).toBe(0o600);
    // The writer still runs (this process): its file stays, folded on from where it was.
    expect(readdirSync(journalDirOf(env))).toHaveLength(1);
    writer.append(request(agentTurn(3)));
    expect(await spanCount(env)).toBe(9);
    writer.close();
    expect(await spanCount(env)).toBe(9);
    // Ended: removed once folded.
    expect(readdirSync(journalDirOf(env))).toEqual([]);
  });

  it('keeps a span sent twice once (an SDK retry), and reads its details', async () => {
    const env = envFor();
    const writer = openTeeWriter(env);
    const bytes = request(agentTurn(5), [
      { key: 'service.name', value: { stringValue: 'svc' } },
      { key: 'wandb.entity', value: { stringValue: 'team' } },
      { key: 'wandb.project', value: { stringValue: 'agents' } },
    ]);
    writer.append(bytes);
    writer.append(bytes);
    writer.close();
    const spans = await withTraceStore(env, (db) => spansOfTrace(db, hexId(5, 16)));
    expect(spans).toHaveLength(3);
    const chat = spans!.find((s) => s.name.startsWith('chat'))!;
    expect(chat).toMatchObject({
      project: 'team/agents',
      service: 'svc',
      model: 'openai/gpt-oss-20b',
      operation: 'chat',
      input_tokens: 120,
      output_tokens: 30,
      parent_id: hexId(5 * 16 + 1, 8),
    });
    expect(chat.attributes).toContainEqual({ key: 'gen_ai.usage.input_tokens', value: { intValue: '120' } });
    expect(chat.resource).toMatchObject({ attributes: expect.any(Array) });
    const tool = spans!.find((s) => s.tool)!;
    expect(tool.tool).toBe('search_docs');
  });

  it('keeps exact 64-bit times', async () => {
    const env = envFor();
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(1)));
    writer.close();
    const spans = (await withTraceStore(env, (db) => spansOfTrace(db, hexId(1, 16))))!;
    const root = spans.find((s) => s.parent_id === null)!;
    expect(root.start_ns).toBe('1795168801000000000');
    expect(root.end_ns).toBe('1795168801500000000');
  });

  it('reads no torn tail, resynchronises past a part, and removes a gone writer’s file', async () => {
    const env = envFor();
    const whole = frameRecord(request(agentTurn(7)));
    // A writer killed mid-append: part of a record, then (another attempt) a whole one after it.
    const file = goneWriterFile(env, [request(agentTurn(6))], whole.subarray(0, 40));
    appendFileSync(file, whole);
    // And a torn tail at the very end.
    appendFileSync(file, frameRecord(request(agentTurn(8))).subarray(0, 25));
    const ids = await withTraceStore(env, (db) =>
      groupTraces(spansSince(db, undefined)).map((g) => g.summary.trace_id),
    );
    expect(ids).toEqual([hexId(7, 16), hexId(6, 16)]);
    expect(existsSync(file)).toBe(false);
  });

  it('waits at a live writer’s partial record, and reads it once it is whole', async () => {
    const env = envFor();
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(1)));
    const record = frameRecord(request(agentTurn(2)));
    appendFileSync(writer.file!, record.subarray(0, 100));
    expect(await spanCount(env)).toBe(3);
    appendFileSync(writer.file!, record.subarray(100));
    expect(await spanCount(env)).toBe(6);
    appendFileSync(writer.file!, END_RECORD);
    expect(await spanCount(env)).toBe(6);
    expect(readdirSync(journalDirOf(env))).toEqual([]);
  });

  it('skips a whole record that is not a request, and bytes that are no record', async () => {
    const env = envFor();
    goneWriterFile(env, [Buffer.from('not protobuf at all \xff\xff'), request(agentTurn(3))]);
    goneWriterFile(env, [], Buffer.from('garbage with no record'));
    expect(await spanCount(env)).toBe(3);
    expect(readdirSync(journalDirOf(env))).toEqual([]);
  });

  it('rotates past its size: the ended file goes once folded', async () => {
    const env = envFor();
    const writer = openTeeWriter(env, { rotateBytes: 1000 });
    for (let n = 1; n <= 5; n++) writer.append(request(agentTurn(n)));
    const files = readdirSync(journalDirOf(env));
    expect(files.length).toBeGreaterThan(1);
    expect(await spanCount(env)).toBe(15);
    // Only the file being written (or none, if it had just rotated) is left.
    expect(readdirSync(journalDirOf(env)).length).toBeLessThanOrEqual(1);
    writer.close();
  });

  it('keeps within its bound: the oldest traces go, whole', async () => {
    const env = envFor();
    const writer = openTeeWriter(env);
    for (let n = 1; n <= 10; n++) writer.append(request(agentTurn(n)));
    writer.close();
    const ids = await withTraceStore(
      env,
      (db) => groupTraces(spansSince(db, undefined)).map((g) => g.summary.trace_id),
      {
        bounds: { maxSpans: 10, maxBytes: 1e9 },
      },
    );
    expect(ids).toEqual([hexId(10, 16), hexId(9, 16), hexId(8, 16)]);
  });

  it('finds trace ids by prefix, and spans after a place', async () => {
    const env = envFor();
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(0x11)));
    writer.append(request(agentTurn(0x12)));
    const seq = (await withTraceStore(env, (db) => lastSeq(db)))!;
    writer.append(request(agentTurn(0x21)));
    writer.close();
    await withTraceStore(env, (db) => {
      const zeros = '0'.repeat(30);
      expect(traceIdsWithPrefix(db, `${zeros}1`)).toEqual([hexId(0x11, 16), hexId(0x12, 16)]);
      expect(traceIdsWithPrefix(db, `${zeros}2`)).toEqual([hexId(0x21, 16)]);
      expect(traceIdsWithPrefix(db, 'f')).toEqual([]);
      const after = spansAfter(db, seq);
      expect(after.spans.map((s) => s.trace_id)).toEqual(Array(3).fill(hexId(0x21, 16)));
      expect(spansAfter(db, after.seq).spans).toEqual([]);
    });
  });

  it('with nothing kept, makes nothing', async () => {
    const env = envFor();
    expect(await withTraceStore(env, () => 1)).toBeUndefined();
    expect(existsSync(tracesDir(env))).toBe(false);
  });

  it('a writer that cannot write warns once, keeps nothing more, and never throws', () => {
    const env = envFor();
    const warnings: string[] = [];
    // Where the journal directory should be, a file: no process, root or not, can write there.
    mkdirSync(tracesDir(env), { recursive: true });
    writeFileSync(journalDirOf(env), '');
    const writer = openTeeWriter(env, { warn: (m) => warnings.push(m) });
    writer.append(request(agentTurn(1)));
    writer.append(request(agentTurn(2)));
    writer.close();
    expect(writer.failed).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^traces tee: cannot write .* \((EEXIST|ENOTDIR)\); nothing more is kept locally/,
    );
  });
});

describe('a record larger than a fold window, holding what looks like records', () => {
  it('is read whole: a fake end mark or record in its payload is never taken for one', async () => {
    const env = envFor();
    // "AIPT", length 0, CRC 0: an end mark, inside an attribute value; and a whole fake record too.
    const fakeEnd = END_RECORD.toString('latin1');
    const fakeRecord = frameRecord(request(agentTurn(99))).toString('latin1');
    const big = 'x'.repeat(5 * 1024 * 1024); // past the 4 MB window
    const hostile = request([
      span({
        trace: hexId(1, 16),
        span: hexId(1, 8),
        name: 'hostile',
        attributes: [str('blob', `${fakeEnd}${fakeRecord}${big}${fakeEnd}`)],
      }),
    ]);
    const writer = openTeeWriter(env);
    writer.append(request(agentTurn(2)));
    writer.append(hostile);
    expect(await spanCount(env)).toBe(4);
    // The file was not taken for ended: what is appended after is read too; and the fake record's
    // three spans are nowhere (4 + 3, not 10).
    writer.append(request(agentTurn(3)));
    expect(await spanCount(env)).toBe(7);
    writer.close();
  });
});
