#!/usr/bin/env node
// `aip mcp` (issue 35): from the client starting it to its first tools/list answer, as an agent's MCP
// client (the official SDK's Client over stdio) sees it, against the smallest MCP server of the same
// SDK (bench/mcp-minimal.mjs: one tool), bundled into one file by esbuild as aip is (unbundled, the
// SDK's hundreds of modules alone took longer than all of `aip mcp`), interleaved run by run in the
// same run. What is left is aip's own: building the command tree and the tools' schemas from it.
//
//   node bench/mcp.mjs [--runs N] [--bin path/to/bin/aip.js]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { build, stop } from 'esbuild';
import { median } from './completion.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MINIMAL = join(ROOT, 'bench', 'mcp-minimal.mjs');

/** Milliseconds from spawning `args` to the answer of its first tools/list, and how many tools. */
async function firstList(node, args, env) {
  const client = new Client({ name: 'aip-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: node, args, env, stderr: 'ignore' });
  const started = performance.now();
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    return { ms: performance.now() - started, tools: tools.length };
  } finally {
    await client.close();
  }
}

/** Rows as bench/run.mjs takes them; `dir` takes the bundled yardstick. */
export async function measureMcp({ node, bin, env, dir, runs = 9 }) {
  const minimal = join(dir, 'mcp-minimal.mjs');
  await build({
    entryPoints: [MINIMAL],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: minimal,
    logLevel: 'error',
  });
  // esbuild's service process would outlive the bench otherwise.
  await stop();
  const times = { aip: [], minimal: [] };
  let tools = 0;
  // One of each first: the disk cache warmed for both alike.
  await firstList(node, [bin, 'mcp'], env);
  await firstList(node, [minimal], env);
  for (let i = 0; i < runs; i++) {
    const order = i % 2 ? ['minimal', 'aip'] : ['aip', 'minimal'];
    for (const side of order) {
      const r = await firstList(node, side === 'aip' ? [bin, 'mcp'] : [minimal], env);
      times[side].push(r.ms);
      if (side === 'aip') tools = r.tools;
    }
  }
  return {
    rows: [
      {
        case: 'aip mcp: start to the first tools/list answer',
        env: `${tools} tools, the SDK's client over stdio, median of ${runs}`,
        ms: median(times.aip),
        baseline: "the SDK's smallest stdio server, bundled (one tool)",
        baselineMs: median(times.minimal),
        target: 2.0,
      },
    ],
    notes: [],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const bin = opt('--bin', join(ROOT, 'bin', 'aip.js'));
  const dir = mkdtempSync(join(tmpdir(), 'aip-bench-mcp-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    AIP_CONFIG_DIR: dir,
    AIP_DATA_DIR: join(dir, 'data'),
    AIP_KEYRING: 'off',
    NO_COLOR: '1',
  };
  try {
    const { rows } = await measureMcp({
      node: process.execPath,
      bin,
      env,
      dir,
      runs: Number(opt('--runs', 9)),
    });
    for (const r of rows)
      console.log(
        `${r.case} (${r.env}): ${r.ms.toFixed(1)} ms against ${r.baselineMs.toFixed(1)} (${r.baseline}): ${(r.ms / r.baselineMs).toFixed(2)}x, target <= ${r.target}x`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
