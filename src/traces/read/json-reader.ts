// Turns the events of an OTLP/JSON input (json-stream.ts) into checked spans in batches: resources
// and scopes become the contexts the spans are batched under, every problem is reported at its own
// line, and resources that route nowhere are refused. Used on the main thread and in workers alike.

import {
  type JsonProblem,
  resourceFromJson,
  scopeFromJson,
  spanFromJson,
  stringFromJson,
} from '../otlp/otlp-json.js';
import { type Project, resourceProject } from '../otlp/routing.js';
import { type BatchBuilder, ResourceContext, ScopeContext } from './batches.js';
import type { OtlpJsonEvent } from './json-stream.js';
import type { Problems } from './problems.js';

export const NO_PROJECT =
  'no project for these spans: they carry no wandb.entity and wandb.project resource attributes, and no project is configured (--project team/project, or aip config set project)';

type Located = Extract<OtlpJsonEvent, { lineOf: unknown }>;

export class JsonSpanReader {
  spans = 0;
  documents = 0;
  private resource: ResourceContext | undefined;
  private scope: ScopeContext | undefined;
  private resourceSpanCount = 0;
  private readonly found: JsonProblem[] = [];

  constructor(
    private readonly builder: BatchBuilder,
    private readonly problems: Problems,
    private readonly project: Project | undefined,
    private readonly onSpan?: (spans: number) => void,
  ) {}

  /** Problems of a value, each at its own line. */
  private report(event: Located): void {
    for (const p of this.found)
      this.problems.add(event.lineOf(p.path.slice(event.path.length)), p.path, p.message);
    this.found.length = 0;
  }

  handle(event: OtlpJsonEvent): void {
    const found = this.found;
    switch (event.kind) {
      case 'document':
        this.documents++;
        break;
      case 'problem':
        this.problems.add(event.line, event.path, event.message);
        // A span too large to read: counted all the same.
        if (event.span) {
          this.spans++;
          this.onSpan?.(this.spans);
        }
        break;
      case 'resourceSpans':
        this.resource = new ResourceContext(event.line);
        this.resourceSpanCount = 0;
        break;
      case 'scopeSpans':
        this.scope = new ScopeContext(this.resource!);
        break;
      case 'resource':
        this.resource!.resource = resourceFromJson(event.value, found, event.path);
        this.resource!.version++;
        this.report(event);
        break;
      case 'resourceSchemaUrl':
        this.resource!.schemaUrl = stringFromJson(event.value, found, event.path);
        this.resource!.version++;
        this.report(event);
        break;
      case 'scope':
        this.scope!.scope = scopeFromJson(event.value, found, event.path);
        this.scope!.version++;
        this.report(event);
        break;
      case 'scopeSchemaUrl':
        this.scope!.schemaUrl = stringFromJson(event.value, found, event.path);
        this.scope!.version++;
        this.report(event);
        break;
      case 'span': {
        this.spans++;
        this.resourceSpanCount++;
        this.onSpan?.(this.spans);
        // Once there is a problem nothing will be sent: checking goes on, batching stops. A span
        // that is plainly right is written as it is checked; any other is checked precisely.
        if (this.problems.count === 0 && this.builder.addJson(event.value, this.scope!)) break;
        const span = spanFromJson(event.value, found, event.path);
        if (!span) this.report(event);
        else if (this.problems.count === 0) this.builder.add(span, this.scope!);
        break;
      }
      case 'encodedSpans':
        for (let k = event.first; k < event.first + event.count; k++) {
          this.spans++;
          this.resourceSpanCount++;
          this.onSpan?.(this.spans);
          if (this.problems.count === 0)
            this.builder.addEncoded(event.bytes, event.offsets[k]!, event.offsets[k + 1]!, this.scope!);
        }
        break;
      case 'end':
        if (event.of === 'scopeSpans') this.scope = undefined;
        else {
          const n = this.resourceSpanCount;
          if (n > 0 && !this.project && !resourceProject(this.resource!.resource)) {
            this.problems.add(
              this.resource!.line,
              undefined,
              `${n} span${n === 1 ? '' : 's'}: ${NO_PROJECT}`,
            );
          }
          this.resource = undefined;
        }
        break;
    }
  }
}
