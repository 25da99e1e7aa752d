// Checks recorded requests against the platform's published OpenAPI document (../shared/reference,
// beside the project; never copied into it). Used by the conformance tests: every body and query
// the CLI sends must validate against the operation's schema.

import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { RequestRecord } from '../../src/emulator/recorder.js';

export const CONTRACT_PATH = new URL('../../../shared/reference/training-openapi.json', import.meta.url);
export const contractPresent = existsSync(CONTRACT_PATH);

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

export function loadContract(): Contract {
  const doc = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8')) as OpenApi;
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
