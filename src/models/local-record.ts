// The models this machine created (models.json beside the config), so that commands can take a name
// instead of a UUID. The API has no way to list models, so this is the only memory of them. Entries
// are per base URL: a name made against the emulator never resolves to a production model.

import { NotFoundError, UsageError } from '../errors/errors.js';
import { hasStrings, readEntries } from '../local-record/file.js';
import { updateJsonFile } from '../settings/json-store.js';

export interface RememberedModel {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  base_url: string;
  created_at: string;
}

interface ModelRecord {
  models: RememberedModel[];
}

function isEntry(value: unknown): value is RememberedModel {
  return hasStrings(value, ['id', 'entity', 'project', 'name', 'base_model', 'base_url']);
}

export function readModelRecord(file: string): ModelRecord {
  return { models: readEntries(file, 'models', isEntry, 'model names') };
}

/**
 * Remembers a model. A name is unique within its project, so an older entry of the same full name
 * (say, from an emulator that has since restarted) is replaced, as is one of the same id.
 */
export function rememberModel(file: string, model: RememberedModel): Promise<boolean> {
  return updateJsonFile(file, readModelRecord, (data) => {
    data.models = data.models.filter(
      (m) => !(m.base_url === model.base_url && (m.id === model.id || fullName(m) === fullName(model))),
    );
    data.models.push(model);
  });
}

export async function forgetModel(file: string, id: string, baseUrl: string): Promise<boolean> {
  return (await forgetModels(file, [id], baseUrl)).length > 0;
}

/**
 * Forgets the models of these ids remembered against `baseUrl` (never asks the server), in one locked
 * write; returns the entries it removed (none: the file is not rewritten).
 */
export async function forgetModels(
  file: string,
  ids: readonly string[],
  baseUrl: string,
): Promise<RememberedModel[]> {
  const gone = new Set(ids.map((id) => id.toLowerCase()));
  let removed: RememberedModel[] = [];
  await updateJsonFile(file, readModelRecord, (data) => {
    const forgets = (m: RememberedModel) => m.base_url === baseUrl && gone.has(m.id.toLowerCase());
    removed = data.models.filter(forgets);
    data.models = data.models.filter((m) => !forgets(m));
    return removed.length > 0;
  });
  return removed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function fullName(m: Pick<RememberedModel, 'entity' | 'project' | 'name'>): string {
  return `${m.entity}/${m.project}/${m.name}`;
}

export interface ResolvedModel {
  id: string;
  /** The local record entry, when this machine created the model. */
  entry: RememberedModel | undefined;
  /** Given by a remembered name (not a UUID): the id is the local record's, which may be stale. */
  byName: boolean;
}

/**
 * A UUID (taken as is), or a remembered name: team/project/name, project/name or name, which must
 * match exactly one model created from this machine against `baseUrl`.
 */
export function resolveModel(record: ModelRecord, ref: string, baseUrl: string): ResolvedModel {
  const known = record.models.filter((m) => m.base_url === baseUrl);
  if (UUID.test(ref)) {
    const id = ref.toLowerCase();
    return { id, entry: known.find((m) => m.id.toLowerCase() === id), byName: false };
  }
  const parts = ref.split('/');
  const matches = known.filter((m) => {
    const full = [m.entity, m.project, m.name];
    return parts.length <= 3 && parts.every((part, i) => part === full[full.length - parts.length + i]);
  });
  if (matches.length === 1) return { id: matches[0]!.id, entry: matches[0], byName: true };
  const listing = (models: RememberedModel[]) => models.map((m) => `${fullName(m)}  ${m.id}`);
  if (matches.length > 1) {
    throw new UsageError(`"${ref}" names ${matches.length} models: give team/project/name or the id`, {
      details: listing(matches),
    });
  }
  // A name that names nothing: not found, as an unknown id is (exit 3).
  throw new NotFoundError(
    known.length === 0
      ? `unknown model "${ref}": not a UUID, and no model was created from this machine against ${baseUrl} (aip models create)`
      : `unknown model "${ref}": not a UUID, nor a model created from this machine against ${baseUrl}; known models:`,
    { details: listing(known) },
  );
}
