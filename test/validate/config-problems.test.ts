// The problems of a --config file as annotations on its lines (for jobs create to call on CI).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubActions } from '../../src/ci/github.js';
import { annotateConfigProblems } from '../../src/validate/config-problems.js';
import { workflowCommands } from '../ci/runner.js';
import { fakeIO } from '../helpers/io.js';
import { tempDir } from '../helpers/temp.js';

describe('annotateConfigProblems', () => {
  it('puts each problem on the line of its setting; one the file does not hold (a flag’s) is not the file’s', () => {
    const workspace = tempDir();
    const env = { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace };
    const { io, stderr } = fakeIO({ env });
    githubActions({ env, io, globals: {} });
    const file = join(workspace, 'config %,:\r\n.json');
    writeFileSync(
      file,
      '{\n  "learning_rate": "fast",\n  "ppo": {\n    "clip": "x"\n  },\n  "odd,key": 1\n}\n',
    );
    annotateConfigProblems(io, `@${file}`, [
      {
        path: ['learning_rate'],
        message: 'experimental_config.learning_rate: Input should be a valid number',
      },
      { path: ['ppo', 'clip'], message: 'experimental_config.ppo.clip: no' },
      { path: ['odd,key'], message: 'experimental_config.odd,key: not a setting: a,b%' },
      { path: ['epsilon'], message: 'experimental_config.epsilon: from a flag' },
    ]);
    const said = workflowCommands(stderr.text).map((c) => ({ ...c.properties, message: c.data }));
    const name = 'config %,:\r\n.json';
    expect(said).toEqual([
      {
        title: 'invalid setting',
        file: name,
        line: '2',
        message: 'experimental_config.learning_rate: Input should be a valid number',
      },
      { title: 'invalid setting', file: name, line: '4', message: 'experimental_config.ppo.clip: no' },
      {
        title: 'invalid setting',
        file: name,
        line: '6',
        message: 'experimental_config.odd,key: not a setting: a,b%',
      },
    ]);
  });

  it('does nothing off GitHub Actions', () => {
    const { io, stderr } = fakeIO();
    annotateConfigProblems(io, 'missing.json', [{ path: ['x'], message: 'x: bad' }]);
    expect(stderr.text).toBe('');
  });
});
