// How a command's run becomes a tool's result: its JSON as structured content, a failure as its error
// line (without a --debug stack) and exit code, and keys masked in all of it.

import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, parseOutput, resultOf } from '../../src/mcp/server.js';
import type { ToolSpec } from '../../src/mcp/tools.js';
import { forgetSecrets, rememberSecret } from '../../src/output/secrets.js';

const tool = { name: 'jobs_get', path: ['jobs', 'get'] } as ToolSpec;
const KEY = 'sk-results-0123456789abcdef';

afterEach(() => forgetSecrets());

describe('tool results', () => {
  it('gives an object as it is, a list as { result }, and the same JSON as text', () => {
    const one = resultOf(tool, { code: 0, stdout: '{"id": "j1"}\n', stderr: '' });
    expect(one.structuredContent).toEqual({ id: 'j1' });
    expect(JSON.parse((one.content[0] as { text: string }).text)).toEqual({ id: 'j1' });
    const list = resultOf(tool, { code: 0, stdout: '[1, 2]\n', stderr: '' });
    expect(list.structuredContent).toEqual({ result: [1, 2] });
    expect(parseOutput('{"a":1}\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
    const text = resultOf(tool, { code: 0, stdout: 'plain words\n', stderr: '' });
    expect(text.structuredContent).toBeUndefined();
    expect(text.content).toEqual([{ type: 'text', text: 'plain words\n' }]);
  });

  it('gives a failure its error line, detail lines and exit code, without a stack', () => {
    const stderr = [
      'some progress',
      'error: the job failed: bad data',
      '  trajectories[0].reward: not a number',
      'JobFailedError: the job failed',
      '    at somewhere (file.ts:1:1)',
      '',
    ].join('\n');
    expect(errorOf(stderr)).toBe('the job failed: bad data\ntrajectories[0].reward: not a number');
    const failed = resultOf(tool, { code: 5, stdout: '{"state": "failed"}\n', stderr });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toEqual({
      exit_code: 5,
      error: 'the job failed: bad data\ntrajectories[0].reward: not a number',
      output: { state: 'failed' },
    });
    expect((failed.content[0] as { text: string }).text).toMatch(
      /^aip jobs get failed \(exit 5\): the job failed/,
    );
  });

  it('masks a key wherever it is', () => {
    rememberSecret(KEY);
    const ok = resultOf(tool, { code: 0, stdout: JSON.stringify({ echo: KEY }), stderr: '' });
    const failed = resultOf(tool, { code: 1, stdout: '', stderr: `error: server said ${KEY}\n` });
    for (const result of [ok, failed]) expect(JSON.stringify(result)).not.toContain(KEY);
  });
});
