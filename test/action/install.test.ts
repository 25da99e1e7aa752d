// aip put on PATH once per job: the launchers written whole, $GITHUB_PATH told once, and the launcher
// runs aip whatever the paths hold.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installLauncher } from '../../src/action/install.js';
import { tempDir } from '../helpers/temp.js';

function job() {
  const root = tempDir('aip-install-');
  const runnerTemp = join(root, "_temp with 'quotes' and spaces");
  mkdirSync(runnerTemp);
  const githubPath = join(root, 'add_path');
  writeFileSync(githubPath, '');
  return { root, runnerTemp, githubPath };
}

describe('installLauncher', () => {
  it('writes aip and aip.cmd, executable, and adds their directory to $GITHUB_PATH once', () => {
    const { root, runnerTemp, githubPath } = job();
    const cli = join(root, 'cli.js');
    writeFileSync(cli, 'process.stdout.write(JSON.stringify(process.argv.slice(2)))');
    const launcher = { runnerTemp, githubPath, node: process.execPath, cli };
    expect(installLauncher(launcher)).toEqual({ dir: join(runnerTemp, 'aip-bin'), added: true });
    expect(installLauncher(launcher)).toEqual({ dir: join(runnerTemp, 'aip-bin'), added: false });
    expect(readFileSync(githubPath, 'utf8').split('\n').filter(Boolean)).toEqual([
      join(runnerTemp, 'aip-bin'),
    ]);
    expect(statSync(join(runnerTemp, 'aip-bin', 'aip')).mode & 0o111).toBe(0o111);
    expect(readFileSync(join(runnerTemp, 'aip-bin', 'aip.cmd'), 'utf8')).toBe(
      `@"${process.execPath}" "${cli}" %*\r\n`,
    );
    const r = spawnSync(join(runnerTemp, 'aip-bin', 'aip'), ['a b', "it's", '', '$HOME'], {
      encoding: 'utf8',
    });
    expect(JSON.parse(r.stdout)).toEqual(['a b', "it's", '', '$HOME']);
  });

  it('rewrites a launcher of another checkout (another ref used later in the job)', () => {
    const { root, runnerTemp, githubPath } = job();
    const first = { runnerTemp, githubPath, node: process.execPath, cli: join(root, 'v1', 'cli.js') };
    installLauncher(first);
    expect(installLauncher({ ...first, cli: join(root, 'v2', 'cli.js') })?.added).toBe(true);
    expect(readFileSync(join(runnerTemp, 'aip-bin', 'aip'), 'utf8')).toContain('/v2/cli.js');
  });

  it('does nothing off a runner', () => {
    expect(
      installLauncher({ runnerTemp: undefined, githubPath: undefined, node: 'node', cli: 'x' }),
    ).toBeUndefined();
  });

  it('fails loudly when the launcher cannot be written, rather than leaving half of one', () => {
    if (process.getuid?.() === 0) return; // root writes anywhere
    const { runnerTemp, githubPath } = job();
    chmodSync(runnerTemp, 0o500);
    expect(() => installLauncher({ runnerTemp, githubPath, node: 'node', cli: 'x' })).toThrow();
  });
});
