// The help the built CLI prints (bin/aip.js → dist/, as installed) is, byte for byte, the help
// commander gives for the full command tree built from the sources. Start-up tricks (building only
// the part of the tree a run needs, caches of help made at build time, a CommonJS front answering
// early) must keep `aip <command…> --help` exactly what the tree says, for every command, at any
// terminal width, with colour on or off. Two productions are compared:
//   - expected, in-process from src/: buildProgram() over an IO set up as the run's (the same
//     environment, stdout a terminal or not), every command asked for its help as aip prints it:
//     commander's outputHelp() (the "Examples:" of addHelpText included), written through io.write
//     to stdout, at the width and with the colour commander would find in that run;
//   - actual: `node bin/aip.js <command…> --help` spawned in that environment; its stdout, stderr and
//     exit status.
// The commands come from walking the tree, so a new command is covered without editing this file.
//
// How a run gets its width and colour (aip configures neither, so commander's defaults decide:
// node_modules/commander/lib/command.js, _outputConfiguration):
//   - width: process.stdout.columns when stdout is a terminal, otherwise none, and the help is laid
//     out for 80 columns. COLUMNS is read by neither Node nor commander: piped, help is 80 columns
//     whatever the environment says. Other widths exist only on a terminal, so those runs are on a
//     pseudo-terminal (util-linux `script`) of that size.
//   - colour: NO_COLOR / FORCE_COLOR=0 off, FORCE_COLOR / CLICOLOR_FORCE on, otherwise on when stdout
//     is a terminal whose TERM has colours. Without colour commander strips escapes from the help.
//
// Which runs, each for every command: piped (80 columns, colour off), on a terminal of 40 columns
// with colour off, on a terminal of 120 columns with colour on; 3 runs a command, ~150 processes, about
// 10 s on two busy cores. Every width in both colour modes (and piped) would be 7 runs a command, over
// 30 s (4 a command took 20 s). Colour on is one run a command, not one per width, because aip's help
// has no colour (a test below checks that): colour on must print the very bytes colour off does, which
// one width shows as well as three. Widths are where a help made ahead of time would go wrong: 80
// (piped, commander's default), a narrower and a wider terminal, at each of which every command's help
// is laid out differently (checked too, so that a run ignoring its width cannot pass).
// Without util-linux `script` (no pseudo-terminal), only the piped runs are made.

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { buildProgram } from '../../src/program.js';
import { commandTree, tempConfigDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/io.js';
import { patience } from '../helpers/patience.js';
import { hasScript } from '../helpers/pty.js';
import { aipEnv, BIN, collect, runAip } from '../helpers/spawn.js';

interface Setting {
  name: string;
  /** The terminal's width; undefined: stdout is a pipe. */
  columns?: number;
  colour: boolean;
}

const COLOUR_ON: Setting = { name: 'on a 120-column terminal, colour on', columns: 120, colour: true };

const SETTINGS: Setting[] = [
  { name: 'piped, colour off', colour: false },
  { name: 'on a 40-column terminal, colour off', columns: 40, colour: false },
  COLOUR_ON,
];

/** Spawns at a time: 2 cores, shared with the rest of the suite. */
const CONCURRENCY = 4;

const ESCAPE = /\u001b/;

/**
 * The environment of a run in that setting: colour off by NO_COLOR (so it is not a missing TERM that
 * turns it off), on as a terminal user gets it, by a TERM with colours and no FORCE_COLOR.
 */
function envFor(setting: Setting, configDir: string): Record<string, string> {
  return {
    AIP_CONFIG_DIR: configDir,
    TERM: 'xterm-256color',
    ...(setting.colour ? {} : { NO_COLOR: '1' }),
  };
}

/** Every command of the tree (hidden ones too) as the words that name it; the root is []. */
function commandPaths(command: Command, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((c) => commandPaths(c, [...path, c.name()]))];
}

function find(program: Command, path: string[]): Command {
  let command = program;
  for (const name of path) command = command.commands.find((c) => c.name() === name)!;
  return command;
}

/**
 * The help of each command as the sources give it in that setting. The tree is built as main() builds
 * it, over an IO whose stdout is (or is not) a terminal of that width, with the run's environment;
 * commander's two questions about the process's stdout (its width and whether it has colours, asked of
 * process.stdout, which here is vitest's) get the answers the spawned run's stdout gives.
 */
function expectedHelp(paths: string[][], setting: Setting, env: Record<string, string>): string[] {
  const { io, stdout } = fakeIO({ env, stdoutTTY: setting.columns !== undefined, columns: setting.columns });
  const program = buildProgram(
    new Context({
      env,
      io,
      transport: async () => {
        throw new Error('help sends nothing');
      },
      sleep: async () => undefined,
      random: Math.random,
      signals: new EventEmitter(),
    }),
  );
  return paths.map((path) => {
    const command = find(program, path);
    // configureOutput on each command: each holds the settings it inherited when it was made.
    command.configureOutput({
      // For a pipe undefined, as commander's own answer is (its typings say number).
      getOutHelpWidth: () => setting.columns as number,
      getOutHasColors: () => setting.colour,
    });
    stdout.text = '';
    command.outputHelp();
    return stdout.text;
  });
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * aip on a pseudo-terminal of that width. `-onlcr`: the terminal passes "\n" as written, so what is
 * read is aip's own bytes, not the terminal's "\r\n". stdout and stderr both land on the terminal:
 * the run's stdout is the terminal's bytes, its stderr what `script` itself says.
 */
function runOnTerminal(args: string[], columns: number, env: Record<string, string>): Promise<Run> {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn(
    'script',
    ['-qec', `stty cols ${columns} rows 50 -onlcr; exec ${command}`, '/dev/null'],
    {
      env: aipEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // One that hangs is killed (code null), so that the test says which.
  return collect(child, patience(60_000)).then(({ code, stdout, stderr }) => ({ code, stdout, stderr }));
}

/** fn over items, at most `limit` at a time, results in the items' order. */
async function inPool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const label = (path: string[]) => ['aip', ...path].join(' ');

describe('help printed by the built CLI', () => {
  // From the tree main() builds (test/helpers/cli.ts), walked: nothing here lists the commands.
  const paths = commandPaths(commandTree());

  it('covers the whole tree: every noun and verb, about fifty commands', () => {
    // A walk that went wrong (an empty tree, the root alone) would make every test below pass.
    expect(paths.length).toBeGreaterThanOrEqual(45);
    expect(paths.map(label)).toEqual(expect.arrayContaining(['aip', 'aip jobs create rl', 'aip config set']));
  });

  it('is laid out differently at each width tested, so a run that ignored its width is seen', () => {
    const piped = expectedHelp(paths, SETTINGS[0]!, envFor(SETTINGS[0]!, '/nonexistent'));
    for (const setting of SETTINGS.slice(1)) {
      const help = expectedHelp(paths, setting, envFor(setting, '/nonexistent'));
      // Today every command's help (its Global Options at least) wraps differently at 40 and 120
      // columns than at 80; most must, or a width would be tested on too few commands to mean much.
      const differ = paths.filter((_, i) => help[i] !== piped[i]).length;
      expect(differ, setting.name).toBeGreaterThan(paths.length / 2);
    }
  });

  it('has no colour: with colour on, every command prints the bytes it prints with colour off', () => {
    // commander styles no part of help unless told to (its Help's style…() methods return the text
    // as it is), and aip tells it nothing: so colour on, the spawned runs can only be checked to
    // print no escape, and the same help, which the runs below check. If aip styles its help one day,
    // this fails: then assert here that colour on has escapes (and off none), and the colour-on runs
    // below start checking the styling, byte for byte.
    const colourOff: Setting = { ...COLOUR_ON, colour: false };
    const off = expectedHelp(paths, colourOff, envFor(colourOff, '/nonexistent'));
    const on = expectedHelp(paths, COLOUR_ON, envFor(COLOUR_ON, '/nonexistent'));
    expect(paths.filter((_, i) => ESCAPE.test(on[i]!)).map(label)).toEqual([]);
    expect(on).toEqual(off);
  });

  for (const setting of SETTINGS) {
    const terminal = setting.columns !== undefined;
    it.runIf(!terminal || hasScript)(
      `is the tree's help, for every command, ${setting.name}`,
      async () => {
        const env = envFor(setting, tempConfigDir());
        const expected = expectedHelp(paths, setting, env).map((stdout) => ({ code: 0, stdout, stderr: '' }));
        const actual = await inPool(paths, CONCURRENCY, async (path): Promise<Run> => {
          const args = [...path, '--help'];
          if (setting.columns !== undefined) return runOnTerminal(args, setting.columns, env);
          const { code, stdout, stderr } = await runAip(args, { env });
          return { code, stdout, stderr };
        });

        const differ = paths.flatMap((_, i) =>
          JSON.stringify(actual[i]) === JSON.stringify(expected[i]) ? [] : [i],
        );
        if (differ.length > 0) {
          const first = differ[0]!;
          expect(
            actual[first],
            `${differ.length} of ${paths.length} commands differ (${differ.map((i) => label(paths[i]!)).join(', ')}); the first, ${label(paths[first]!)} --help`,
          ).toEqual(expected[first]);
        }
        if (!setting.colour) expect(actual.filter((r) => ESCAPE.test(r.stdout))).toEqual([]);
      },
      // About fifty processes, CONCURRENCY at a time: 2–5 s on a quiet machine, 25 s and more on a busy one.
      patience(180_000),
    );
  }
});
