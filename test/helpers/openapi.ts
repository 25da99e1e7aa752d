// Checks recorded requests against the platform's published OpenAPI document (../shared/reference,
// beside the project; never copied into it). Used by the conformance tests: every body and query
// the CLI sends must validate against the operation's schema. locateContract() is the one way the
// contract suites find the document: missing, they are skipped with the reason on a local run, and
// fail under CI, where a silent skip would pass a submission that was never checked.

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, it } from 'vitest';
import type { RequestRecord } from '../../src/emulator/index.js';

export const CONTRACT_PATH = new URL('../../../shared/reference/training-openapi.json', import.meta.url);

export type ContractLocation =
  | { present: true; path: string }
  | { present: false; path: string; reason: string };

/** CI=true (GitHub Actions, GitLab, most runners); '', '0' and 'false' are not CI. */
export function isCi(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/**
 * Where the Training API document is. Missing, it is a reason to skip on a developer's machine, and an
 * error under CI (thrown: the suite that asked fails to load, so the run fails).
 */
export function locateContract(
  options: { path?: URL | string; env?: Record<string, string | undefined> } = {},
): ContractLocation {
  const where = options.path ?? CONTRACT_PATH;
  const path = typeof where === 'string' ? where : fileURLToPath(where);
  if (existsSync(path)) return { present: true, path };
  const reason = `the Training API document is missing: ${path} (expected in ../shared/reference beside the project)`;
  if (isCi(options.env ?? process.env)) {
    throw new Error(`${reason}. Under CI the contract suites must run: failing instead of skipping.`);
  }
  return { present: false, path, reason };
}

/**
 * describe() given the document's path when it is there; otherwise a skipped describe whose title says
 * why (and the reason on stderr), or, under CI, the error of locateContract().
 */
export function describeWithContract(
  title: string,
  body: (path: string) => void,
  options: { path?: URL | string; env?: Record<string, string | undefined> } = {},
): void {
  const location = locateContract(options);
  if (location.present) {
    describe(title, () => body(location.path));
    return;
  }
  console.warn(`skipping "${title}": ${location.reason}`);
  describe.skip(`${title} [skipped: ${location.reason}]`, () => {
    it('needs the Training API document', () => {});
  });
}

interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: unknown }>;
  requestBody?: { content: { 'application/json': { schema: unknown } } };
}

type OpenApi = { paths: Record<string, Record<string, Operation>> };

export interface Contract {
  /** The OpenAPI path template a recorded Training API request matches, e.g. /v1/preview/models/{model_id}. */
  templateFor(record: RequestRecord): string | undefined;
  /** Problems of the request against its operation; [] when it conforms. */
  check(record: RequestRecord): string[];
}

export function loadContract(path: URL | string = CONTRACT_PATH): Contract {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as OpenApi;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  ajv.addSchema(doc, 'openapi');
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  const templateFor = (record: RequestRecord) => {
    const path = record.path.replace(/^\/training/, '');
    return templates.find((t) => t.regex.test(path) && doc.paths[t.template]?.[record.method.toLowerCase()])
      ?.template;
  };

  const validate = (schema: unknown, value: unknown, where: string): string[] => {
    const fn = ajv.compile(schema as object);
    if (fn(value)) return [];
    return (fn.errors ?? []).map((e) => `${where}${e.instancePath}: ${e.message}`);
  };
  // $refs in the operation point into the document: resolve them through the registered copy.
  const withRefs = (schema: unknown): unknown =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));

  return {
    templateFor,
    check(record) {
      const template = templateFor(record);
      if (!template) return [`${record.method} ${record.path}: no such operation in the OpenAPI document`];
      const operation = doc.paths[template]![record.method.toLowerCase()]!;
      const problems: string[] = [];
      const schema = operation.requestBody?.content['application/json']?.schema;
      if (schema) problems.push(...validate(withRefs(schema), record.body, 'body'));
      else if (record.body !== null) problems.push('body: the operation takes no body');
      for (const param of operation.parameters ?? []) {
        if (param.in !== 'query') continue;
        const raw = record.query[param.name];
        if (raw === undefined) {
          if (param.required) problems.push(`query.${param.name}: required`);
          continue;
        }
        const value = /^-?\d+$/.test(raw) ? Number(raw) : raw;
        problems.push(...validate(withRefs(param.schema), value, `query.${param.name}`));
      }
      for (const name of Object.keys(record.query)) {
        if (!operation.parameters?.some((p) => p.in === 'query' && p.name === name))
          problems.push(`query.${name}: not a parameter of the operation`);
      }
      return problems;
    },
  };
}
