// Requests for the redaction tests, built as an exporter would send them and decoded as the gateway
// will have them (protobufjs messages, defaults on their prototypes), and a plain reading of their
// attributes for assertions. Entries, not objects: keys such as __proto__ must read back as they are.

import {
  decodeRequest,
  encodeRequest,
  int64String,
  type PbAnyValue,
  type PbEvent,
  type PbExportRequest,
  type PbKeyValue,
} from '../../../src/traces/otlp/otlp.js';
import { Redactor } from '../../../src/traces/redact/apply.js';
import type { PresetName } from '../../../src/traces/redact/presets.js';
import { parseDrop, parseRedact, presetRules } from '../../../src/traces/redact/rules.js';

export const str = (key: string, value: string): PbKeyValue => ({ key, value: { stringValue: value } });
export const kv = (key: string, value: PbAnyValue): PbKeyValue => ({ key, value });

export interface Parts {
  resource?: PbKeyValue[];
  scope?: PbKeyValue[];
  span?: PbKeyValue[];
  events?: PbEvent[];
  links?: PbKeyValue[][];
}

const ID = (n: number, length: number) => new Uint8Array(length).fill(n);

/** One resource, one scope, one span; decoded from its own encoding, as the gateway gets it. */
export function request(parts: Parts): PbExportRequest {
  return decodeRequest(
    encodeRequest({
      resourceSpans: [
        {
          resource: { attributes: parts.resource ?? [] },
          scopeSpans: [
            {
              scope: { name: 'agent', attributes: parts.scope ?? [] },
              spans: [
                {
                  traceId: ID(1, 16),
                  spanId: ID(2, 8),
                  name: 'chat gpt-test',
                  kind: 3,
                  attributes: parts.span ?? [],
                  events: parts.events ?? [],
                  links: (parts.links ?? []).map((attributes, i) => ({
                    traceId: ID(3 + i, 16),
                    spanId: ID(4 + i, 8),
                    attributes,
                  })),
                },
              ],
            },
          ],
        },
      ],
    }),
  );
}

/** A value as plain data: strings, numbers, booleans, arrays, entries for kvlists, bytes as `bytes:<hex>`. */
export function plain(value: PbAnyValue | undefined | null): unknown {
  if (!value) return undefined;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue) return Number(int64String(value.intValue, true));
  if (typeof value.doubleValue === 'number') return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.kvlistValue) return entries(value.kvlistValue.values);
  if (value.bytesValue) return `bytes:${Buffer.from(value.bytesValue).toString('hex')}`;
  return undefined;
}

export function entries(list: PbKeyValue[] | undefined | null): Array<[string, unknown]> {
  return (list ?? []).map((a) => [a.key, plain(a.value)]);
}

/** Where attributes live in a request from request(). */
export function where(req: PbExportRequest) {
  const resourceSpans = req.resourceSpans[0]!;
  const scopeSpans = resourceSpans.scopeSpans[0]!;
  const span = scopeSpans.spans[0]!;
  return { resource: resourceSpans.resource!, scope: scopeSpans.scope!, span };
}

/** A Redactor from flag values, as the command line would give them. */
export function redactor(flags: { redact?: string[]; drop?: string[]; presets?: PresetName[] }): Redactor {
  return new Redactor([
    ...(flags.drop ?? []).map(parseDrop),
    ...(flags.redact ?? []).map(parseRedact),
    ...(flags.presets ?? []).flatMap(presetRules),
  ]);
}
