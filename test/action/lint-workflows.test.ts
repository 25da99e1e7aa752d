// The lint of what GitHub runs (scripts/lint-workflows.mjs) passes on the repository and catches what
// it is there for: a metadata file the runner would refuse or misread, and a workflow that gives the
// action an input it does not have.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkActionMetadata, checkActionUses, lintRepository } from '../../scripts/lint-workflows.mjs';
import { tempDir } from '../helpers/temp.js';
import { REPO } from './runner-layout.js';

const metadata = readFileSync(join(REPO, 'action.yml'), 'utf8');
const messages = (problems: Array<{ message: string }>) => problems.map((p) => p.message);

describe('lint-workflows', () => {
  it('finds no problem in the repository', async () => {
    const { problems, workflows } = await lintRepository(REPO);
    expect(problems).toEqual([]);
    expect(workflows).toBeGreaterThan(0);
  });

  it('runs actionlint on each workflow: an undefined step in an expression is found', async () => {
    const dir = tempDir('aip-lint-');
    mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
    mkdirSync(join(dir, 'action'));
    writeFileSync(join(dir, 'action', 'index.js'), '');
    writeFileSync(join(dir, 'action.yml'), metadata);
    writeFileSync(
      join(dir, '.github', 'workflows', 'ci.yml'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, not a template
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n',
    );
    const { problems } = await lintRepository(dir);
    expect(problems).toEqual([
      expect.objectContaining({ file: join('.github', 'workflows', 'ci.yml'), line: 6, kind: 'expression' }),
    ]);
  });

  it('refuses an end-of-life runtime, a missing entry, and a composite output without a value', () => {
    expect(
      messages(checkActionMetadata(metadata.replace('using: node24', 'using: node20'), 'action.yml', REPO)),
    ).toEqual(['runs.using node20 runs on an end-of-life Node: use node24']);
    expect(
      messages(
        checkActionMetadata(
          metadata.replace('main: action/index.js', 'main: action/gone.js'),
          'action.yml',
          REPO,
        ),
      ),
    ).toEqual(['runs.main: action/gone.js does not exist']);
    const composite =
      'name: a\ndescription: b\noutputs:\n  x:\n    description: c\nruns:\n  using: composite\n  steps: []\n';
    expect(messages(checkActionMetadata(composite, 'action.yml', REPO))).toEqual([
      'output "x" of a composite action needs a value',
    ]);
    expect(checkActionMetadata('name: a\nruns: [\n', 'action.yml', REPO).length).toBeGreaterThan(0);
  });

  it('checks the inputs a workflow gives the action from a checkout in a sub-folder', () => {
    const workflow = (withLines: string) => `on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          path: sub/aip
      - uses: ./sub/aip
        with:
${withLines}
`;
    expect(checkActionUses(workflow('          args: health'), 'w.yml', metadata)).toEqual([]);
    const problems = checkActionUses(workflow('          arg: health'), 'w.yml', metadata);
    expect(messages(problems)).toEqual([
      expect.stringMatching(/^input "arg" is not defined in action.yml/),
      'missing input "args", which action.yml requires',
    ]);
    expect(problems[0]).toMatchObject({ file: 'w.yml', line: 11 });
    expect(
      messages(
        checkActionUses(workflow('          args: x').replace('./sub/aip', './elsewhere'), 'w.yml', metadata),
      ),
    ).toEqual(['./elsewhere is not a checkout of this repository made earlier in the job']);
  });
});
