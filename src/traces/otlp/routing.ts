// Which project spans land in (api-contract.md §4.2): the resource attributes wandb.entity and
// wandb.project, which take precedence, or the project_id header. Spans with neither are dropped by
// the platform, so aip fills the attributes in from the configured team/project when a resource
// lacks them, and refuses, before sending, spans that would have no project at all.

import type { PbKeyValue, PbResource } from './otlp.js';

export const ENTITY_ATTRIBUTE = 'wandb.entity';
export const PROJECT_ATTRIBUTE = 'wandb.project';

export interface Project {
  entity: string;
  project: string;
}

/** "team/project" as a Project (undefined when it is not of that form). */
export function parseProject(value: string | undefined): Project | undefined {
  const match = value ? /^([^/\s]+)\/([^/\s]+)$/.exec(value) : null;
  return match ? { entity: match[1]!, project: match[2]! } : undefined;
}

function stringAttribute(attributes: PbKeyValue[] | undefined, key: string): string | undefined {
  const value = attributes?.find((kv) => kv.key === key)?.value?.stringValue;
  return value ? value : undefined;
}

/** The project a resource routes to by its own attributes (both must be there). */
export function resourceProject(resource: PbResource): Project | undefined {
  const entity = stringAttribute(resource.attributes, ENTITY_ATTRIBUTE);
  const project = stringAttribute(resource.attributes, PROJECT_ATTRIBUTE);
  return entity && project ? { entity, project } : undefined;
}

/**
 * The resource routed to `project` unless it routes itself (both attributes, non-empty). A resource
 * with only one of the two gets both of the project's: the other alone would send its spans to a
 * team and project that nobody named together.
 */
export function withRouting(resource: PbResource, project: Project | undefined): PbResource {
  if (!project || resourceProject(resource)) return resource;
  const routing = (kv: PbKeyValue) => kv.key === ENTITY_ATTRIBUTE || kv.key === PROJECT_ATTRIBUTE;
  const kept = (resource.attributes ?? []).filter((kv) => !routing(kv));
  return {
    ...resource,
    attributes: [
      ...kept,
      { key: ENTITY_ATTRIBUTE, value: { stringValue: project.entity } },
      { key: PROJECT_ATTRIBUTE, value: { stringValue: project.project } },
    ],
  };
}
