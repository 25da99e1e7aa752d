// The TAB that completes a model name or a job id, over thousands of remembered ones (issue 32): each
// model named as short as it is unique, computed in one pass (values.ts), offering exactly what the
// former one-model-at-a-time search offered; and 10,000 models and 10,000 jobs answered in full.
// No time is asserted: bench/completion.mjs measures it.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortestNames } from '../../src/commands/completion/values.js';
import { fullName, type RememberedModel } from '../../src/models/local-record.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const HOSTED = 'https://api.training.wandb.ai/v1';

const model = (i: number, entity: string, project: string, name: string): RememberedModel => ({
  id: `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
  entity,
  project,
  name,
  base_model: 'OpenPipe/Qwen3-14B-Instruct',
  base_url: HOSTED,
  created_at: '2025-01-01T00:00:00Z',
});

/** The search completion made before, one model at a time over every model (quadratic). */
function formerShortestName(m: RememberedModel, known: readonly RememberedModel[]): string {
  const forms = [m.name, `${m.project}/${m.name}`, fullName(m)];
  const depth = forms.findIndex((form) => known.filter((k) => fullName(k).endsWith(`/${form}`)).length === 1);
  return forms[depth < 0 ? 2 : depth]!;
}

async function complete(dir: string, typed: string[]) {
  const r = await runCli(['__complete', '--', ...typed], { env: { AIP_CONFIG_DIR: dir } });
  expect([r.code, r.stderr]).toEqual([0, '']);
  return r.stdout.split('\n').filter(Boolean);
}

describe('model names in completion, in one pass', () => {
  it('names each model as the former search did, whatever the names (slashes, repeats, empty parts)', () => {
    const part = fc.constantFrom('a', 'b', 'a/b', '', 'x/');
    const models = fc.array(fc.tuple(part, part, part), { maxLength: 12 });
    fc.assert(
      fc.property(models, (parts) => {
        const known = parts.map(([e, p, n], i) => model(i, e, p, n));
        expect(shortestNames(known).names).toEqual(known.map((m) => formerShortestName(m, known)));
      }),
    );
  });

  it('collisions: the same name in two projects is project/name; the same project/name in two teams the full name', async () => {
    const dir = tempConfigDir();
    const models = [
      model(1, 'team', 'proj', 'agent'),
      model(2, 'team', 'other', 'agent'),
      model(3, 'team', 'common', 'twin'),
      model(4, 'elsewhere', 'common', 'twin'),
      model(5, 'team', 'proj', 'solo'),
    ];
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ models }));
    expect(await complete(dir, ['checkpoints', 'list', ''])).toEqual([
      'proj/agent\tteam/proj/agent, from OpenPipe/Qwen3-14B-Instruct',
      'other/agent\tteam/other/agent, from OpenPipe/Qwen3-14B-Instruct',
      'team/common/twin\tteam/common/twin, from OpenPipe/Qwen3-14B-Instruct',
      'elsewhere/common/twin\telsewhere/common/twin, from OpenPipe/Qwen3-14B-Instruct',
      'solo\tteam/proj/solo, from OpenPipe/Qwen3-14B-Instruct',
      ':values',
    ]);
  });

  it('a record that is not all ASCII is read as UTF-8', async () => {
    const dir = tempConfigDir();
    const models = [model(1, 'équipe', 'projet', 'modèle-ü'), model(2, 'team', 'proj', 'agent')];
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ models }));
    expect(await complete(dir, ['checkpoints', 'list', ''])).toEqual([
      'modèle-ü\téquipe/projet/modèle-ü, from OpenPipe/Qwen3-14B-Instruct',
      'agent\tteam/proj/agent, from OpenPipe/Qwen3-14B-Instruct',
      ':values',
    ]);
  });

  it('10,000 models: every one offered, in order, each by the shortest unique form', async () => {
    const dir = tempConfigDir();
    // A third unique by name, a third by project/name (pairs in two projects), a third only by the
    // full name (pairs in two teams); a pair whose partner is past 10,000 is unique by name.
    const COUNT = 10_000;
    const partnered = (i: number) => 3 * (Math.floor(i / 3) ^ 1) + (i % 3) < COUNT;
    const expected: string[] = [];
    const models = Array.from({ length: COUNT }, (_, i) => {
      const n = Math.floor(i / 3);
      if (i % 3 === 0) {
        expected.push(`agent-${n}`);
        return model(i, 'team', 'solo', `agent-${n}`);
      }
      if (i % 3 === 1) {
        const project = `proj-${n % 2}`;
        expected.push(partnered(i) ? `${project}/shared-${n >> 1}` : `shared-${n >> 1}`);
        return model(i, 'team', project, `shared-${n >> 1}`);
      }
      const team = `team-${n % 2}`;
      expected.push(partnered(i) ? `${team}/common/twin-${n >> 1}` : `twin-${n >> 1}`);
      return model(i, team, 'common', `twin-${n >> 1}`);
    });
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ models }));
    const lines = await complete(dir, ['checkpoints', 'list', '']);
    expect(lines.at(-1)).toBe(':values');
    expect(lines.slice(0, -1).map((l) => l.split('\t')[0])).toEqual(expected);
    expect(lines[1]).toBe('proj-0/shared-0\tteam/proj-0/shared-0, from OpenPipe/Qwen3-14B-Instruct');
    expect(shortestNames(models).names).toEqual(expected);
    // Narrowed to the word typed.
    expect(await complete(dir, ['checkpoints', 'list', 'agent-333'])).toEqual([
      'agent-333\tteam/solo/agent-333, from OpenPipe/Qwen3-14B-Instruct',
      'agent-3330\tteam/solo/agent-3330, from OpenPipe/Qwen3-14B-Instruct',
      'agent-3331\tteam/solo/agent-3331, from OpenPipe/Qwen3-14B-Instruct',
      'agent-3332\tteam/solo/agent-3332, from OpenPipe/Qwen3-14B-Instruct',
      'agent-3333\tteam/solo/agent-3333, from OpenPipe/Qwen3-14B-Instruct',
      ':values',
    ]);
  });

  it('10,000 jobs: every one offered, newest first', async () => {
    const dir = tempConfigDir();
    const jobs = Array.from({ length: 10_000 }, (_, i) => ({
      id: `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
      kind: 'rl',
      model_id: '11111111-0000-4000-8000-000000000000',
      model: 'team/proj/agent',
      base_url: HOSTED,
      created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    }));
    writeFileSync(join(dir, 'jobs.json'), JSON.stringify({ jobs }));
    const lines = await complete(dir, ['jobs', 'get', '']);
    expect(lines).toHaveLength(10_001);
    expect(lines.slice(0, -1).map((l) => l.split('\t')[0])).toEqual(jobs.map((j) => j.id).reverse());
    expect(lines[0]).toBe(`${jobs.at(-1)!.id}\trl team/proj/agent, created 2025-01-07 22:39`);
  });
});
