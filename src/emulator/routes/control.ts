// /_emulator/…: inspection and fault injection for tests and benchmarks. Not part of the platform
// contract; never recorded, never faulted. Like the platform's routes they need a key the emulator was
// started with (or its control key), and they take JSON only (pipeline.ts, guard.ts): what they expose
// (the request record, with bodies) and do (faults, reset) is no business of a web page.

import { isObject } from '../../lib/json.js';
import { FaultSpecError, type FaultStore } from '../faults.js';
import type { RequestLog } from '../recorder.js';
import { COMPONENTS } from '../state.js';
import { jobResponse } from './jobs.js';
import type { EmulatorRouter } from './types.js';

export function registerControlRoutes(router: EmulatorRouter, faults: FaultStore, log: RequestLog): void {
  registerHealthRoute(router, log);
  registerRequestRoutes(router, log);
  registerFaultRoutes(router, faults);
  registerSystemCheckRoutes(router);
  registerCheckpointRoute(router);
  registerJobPlanRoute(router);
  registerChatPaceRoute(router);
  registerRecordRoutes(router);
  registerStateRoutes(router, faults, log);
}

function registerHealthRoute(router: EmulatorRouter, log: RequestLog): void {
  router.add('GET', '/_emulator/health', {
    run: (x) =>
      x.send(200, {
        ok: true,
        pid: process.pid,
        uptime_s: Math.round((Date.now() - x.state.startedAt) / 1000),
        requests: log.total,
        // Where the state is kept (null: in memory only), and how much of it there is.
        state_dir: x.state.persistence.dir ?? null,
        // Which SQLite keeps it (node:sqlite or node-sqlite3-wasm; null in memory).
        store: x.state.persistence.driver ?? null,
        counts: x.state.counts(),
      }),
  });
}

/** The request record: what reached the emulator, and how often each route did. */
function registerRequestRoutes(router: EmulatorRouter, log: RequestLog): void {
  router.add('GET', '/_emulator/requests', {
    run: (x) => {
      const filter = { method: x.query.get('method') ?? undefined, path: x.query.get('path') ?? undefined };
      x.send(200, { data: log.list(filter), dropped: log.dropped });
    },
  });
  router.add('DELETE', '/_emulator/requests', {
    run: (x) => {
      log.clear();
      x.send(200, { cleared: true });
    },
  });
  router.add('GET', '/_emulator/counts', { run: (x) => x.send(200, log.routeCounts()) });
}

function registerFaultRoutes(router: EmulatorRouter, faults: FaultStore): void {
  router.add('POST', '/_emulator/faults', {
    run: (x) => {
      try {
        x.send(201, faults.add(x.json()));
      } catch (error) {
        if (!(error instanceof FaultSpecError)) throw error;
        x.invalid([{ type: 'value_error', loc: ['body'], msg: error.message }]);
      }
    },
  });
  router.add('GET', '/_emulator/faults', { run: (x) => x.send(200, { data: faults.list() }) });
  router.add('DELETE', '/_emulator/faults', {
    run: (x) => {
      faults.clear();
      x.send(200, { cleared: true });
    },
  });
  router.add('DELETE', '/_emulator/faults/:id', {
    run: (x) =>
      faults.remove(x.params.id!) ? x.send(200, { deleted: x.params.id }) : x.error(404, 'no such fault'),
  });
}

/** The components system-check reports on, made to fail and healed again. */
function registerSystemCheckRoutes(router: EmulatorRouter): void {
  router.add('GET', '/_emulator/system-check', {
    run: (x) => x.send(200, { failing: Object.fromEntries(x.state.failingComponents) }),
  });
  // {"failing": {"database": "connection refused"}} makes system-check answer 503; {} heals all.
  router.add('PUT', '/_emulator/system-check', {
    run: (x) => {
      const body = x.json() as { failing?: unknown };
      const failing = body?.failing ?? {};
      const entries = typeof failing === 'object' && failing !== null ? Object.entries(failing) : [];
      const unknown = entries.filter(([name]) => !(COMPONENTS as readonly string[]).includes(name));
      if (unknown.length > 0 || typeof failing !== 'object') {
        x.invalid([
          { type: 'value_error', loc: ['body', 'failing'], msg: `components are ${COMPONENTS.join(', ')}` },
        ]);
        return;
      }
      x.state.failingComponents = new Map(entries.map(([name, message]) => [name, String(message)]));
      x.send(200, { failing: Object.fromEntries(x.state.failingComponents) });
    },
  });
}

/**
 * Checkpoints for a model without training it: {"count": 250} adds steps 1…250 after the last one,
 * {"steps": [3, 5]} adds those; metrics follow the emulator's curve unless given.
 */
function registerCheckpointRoute(router: EmulatorRouter): void {
  router.add('POST', '/_emulator/models/:model_id/checkpoints', {
    run: (x) => {
      const store = x.state.models;
      const model = store.models.get(x.params.model_id!);
      if (!model) return x.error(404, `Model ${x.params.model_id} not found`);
      const body = x.json() as { count?: unknown; steps?: unknown; metrics?: unknown };
      const last = store.checkpointsOf(model.id).at(-1)?.step ?? 0;
      const steps = Array.isArray(body.steps)
        ? body.steps.filter((s): s is number => Number.isInteger(s) && s >= 0)
        : Array.from(
            { length: Number.isInteger(body.count) ? Math.min(body.count as number, 100_000) : 0 },
            (_, i) => last + 1 + i,
          );
      const metrics = isObject(body.metrics) ? (body.metrics as Record<string, number>) : undefined;
      store.addCheckpoints(model.id, steps, metrics);
      x.send(200, { added: steps.length, checkpoints: store.checkpointsOf(model.id).length });
    },
  });
}

/**
 * How the next jobs go: {"steps": 300} for a long job, {"fail_at_step": 2, "error_message": "…"} for
 * one that fails part-way; "times" (default 1) jobs use the plan. {"step_ms": 5} changes the pace.
 */
function registerJobPlanRoute(router: EmulatorRouter): void {
  router.add('POST', '/_emulator/job-plans', {
    run: (x) => {
      const body = x.json() as Record<string, unknown>;
      const problems: Array<{ type: string; loc: Array<string | number>; msg: string }> = [];
      const whole = (name: string, min: number): number | undefined => {
        const v = body[name];
        if (v === undefined) return undefined;
        if (Number.isInteger(v) && (v as number) >= min) return v as number;
        problems.push({ type: 'value_error', loc: ['body', name], msg: `a whole number, at least ${min}` });
        return undefined;
      };
      const stepMs = whole('step_ms', 0);
      const plan = {
        steps: whole('steps', 1),
        fail_at_step: whole('fail_at_step', 1),
        remaining: whole('times', 1) ?? 1,
      };
      if (plan.steps !== undefined && plan.fail_at_step !== undefined && plan.fail_at_step > plan.steps) {
        problems.push({
          type: 'value_error',
          loc: ['body', 'fail_at_step'],
          msg: 'a step the job has: at most steps',
        });
      }
      if (body.error_message !== undefined && typeof body.error_message !== 'string') {
        problems.push({
          type: 'string_type',
          loc: ['body', 'error_message'],
          msg: 'Input should be a valid string',
        });
      }
      if (problems.length > 0) return x.invalid(problems);
      const jobs = x.state.jobs;
      // A new pace applies to jobs created from now on; running jobs keep theirs.
      if (stepMs !== undefined) jobs.stepMs = stepMs;
      if (plan.steps !== undefined || plan.fail_at_step !== undefined) {
        jobs.plans.push({ ...plan, error_message: body.error_message as string | undefined });
      }
      x.send(200, { step_ms: jobs.stepMs, plans: jobs.plans });
    },
  });
}

/**
 * The pace of chat replies: {"token_ms": 0} between streamed tokens, {"unstreamed_token_ms": 5} per
 * token of a reply sent whole (before it is sent); either or both.
 */
function registerChatPaceRoute(router: EmulatorRouter): void {
  router.add('POST', '/_emulator/chat', {
    run: (x) => {
      const body = x.json() as Record<string, unknown>;
      const fields = ['token_ms', 'unstreamed_token_ms'] as const;
      const given = fields.filter((name) => body?.[name] !== undefined);
      const bad = given.filter((name) => {
        const ms = body[name];
        return !Number.isInteger(ms) || (ms as number) < 0 || (ms as number) > 60_000;
      });
      if (given.length === 0 || bad.length > 0) {
        const names = given.length === 0 ? fields : bad;
        return x.invalid(
          names.map((name) => ({
            type: 'value_error',
            loc: ['body', name],
            msg: 'a whole number of ms, 0 to 60000',
          })),
        );
      }
      if (body.token_ms !== undefined) x.state.tokenMs = body.token_ms as number;
      if (body.unstreamed_token_ms !== undefined)
        x.state.unstreamedTokenMs = body.unstreamed_token_ms as number;
      x.send(200, { token_ms: x.state.tokenMs, unstreamed_token_ms: x.state.unstreamedTokenMs });
    },
  });
}

/** What the platform kept: training logs and the spans trace ingest accepted. */
function registerRecordRoutes(router: EmulatorRouter): void {
  router.add('GET', '/_emulator/logs', { run: (x) => x.send(200, { data: x.state.models.logs }) });

  // The spans trace ingest accepted, decoded: ?project=team/project&trace_id=…&name=…&offset=&limit=
  router.add('GET', '/_emulator/spans', {
    run: (x) => {
      const whole = (name: string, fallback: number, max: number) => {
        const v = x.query.get(name);
        return v !== null && /^\d+$/.test(v) ? Math.min(Number(v), max) : fallback;
      };
      const result = x.state.spans.query({
        project: x.query.get('project') ?? undefined,
        traceId: x.query.get('trace_id') ?? undefined,
        name: x.query.get('name') ?? undefined,
        offset: whole('offset', 0, Number.MAX_SAFE_INTEGER),
        limit: whole('limit', 1000, 1_000_000),
      });
      x.send(200, { ...x.state.spans.summary(), total: result.total, data: result.data });
    },
  });
  router.add('DELETE', '/_emulator/spans', {
    run: (x) => {
      x.state.spans.clear();
      x.send(200, { deleted: true });
    },
  });
}

/** The whole state at a glance, and back to none of it. */
function registerStateRoutes(router: EmulatorRouter, faults: FaultStore, log: RequestLog): void {
  router.add('GET', '/_emulator/state', {
    run: (x) => {
      const store = x.state.models;
      x.send(200, {
        models: [...store.models.values()].map((m) => ({
          ...m,
          checkpoints: store.checkpointsOf(m.id).length,
        })),
        logs: store.logs.length,
        jobs: x.state.jobs.all().map((j) => ({
          ...jobResponse(j),
          events: j.events.length,
          steps: j.steps,
          // What its metrics follow (metrics.ts): the data's summary and where the model was.
          data: j.data ?? null,
          start: j.start ?? null,
        })),
        spans: x.state.spans.summary(),
      });
    },
  });

  router.add('POST', '/_emulator/reset', {
    run: (x) => {
      x.state.reset();
      faults.clear();
      log.clear();
      x.send(200, { reset: true });
    },
  });
}
