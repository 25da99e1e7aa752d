// How the contract suites find the Training API document: beside the project in ../shared/reference;
// missing, a visible skip on a developer's machine, and a failure under CI (never a silent pass).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTRACT_PATH, describeWithContract, isCi, locateContract } from '../helpers/openapi.js';

const dir = mkdtempSync(join(tmpdir(), 'aip-test-locator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('locateContract', () => {
  it('looks in ../shared/reference beside the project', () => {
    const project = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
    expect(fileURLToPath(CONTRACT_PATH)).toBe(resolve(project, '../shared/reference/training-openapi.json'));
  });

  it('finds a document that is there, CI or not', () => {
    const path = join(dir, 'training-openapi.json');
    writeFileSync(path, '{}');
    expect(locateContract({ path, env: {} })).toEqual({ present: true, path });
    expect(locateContract({ path, env: { CI: 'true' } })).toEqual({ present: true, path });
  });

  it('missing on a developer machine: a reason to skip, naming the path', () => {
    const path = join(dir, 'nowhere.json');
    for (const env of [{}, { CI: 'false' }, { CI: '0' }, { CI: '' }]) {
      const found = locateContract({ path, env });
      expect(found.present).toBe(false);
      expect(found.present === false && found.reason).toContain(path);
    }
  });

  it('missing under CI: an error, so that the suite fails instead of skipping', () => {
    const path = join(dir, 'nowhere.json');
    expect(() => locateContract({ path, env: { CI: 'true' } })).toThrow(
      new RegExp(
        `missing: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*Under CI the contract suites must run`,
      ),
    );
    expect(() => locateContract({ path: new URL(`file://${path}`), env: { CI: '1' } })).toThrow(/CI/);
  });

  it('reads CI as the runners set it', () => {
    expect([isCi({ CI: 'true' }), isCi({ CI: 'TRUE' }), isCi({ CI: '1' })]).toEqual([true, true, true]);
    expect([isCi({}), isCi({ CI: 'false' }), isCi({ CI: '0' }), isCi({ CI: ' ' })]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

// The skip as a developer sees it: listed as skipped, the reason in its title (and on stderr).
describeWithContract(
  'a suite whose document is missing',
  () => {
    it('never runs', () => {
      throw new Error('ran without its document');
    });
  },
  { path: join(dir, 'nowhere.json'), env: {} },
);
