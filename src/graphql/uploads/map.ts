/**
 * The `map` field of a GraphQL multipart request: which file goes where in `operations`. Paths
 * must start at `variables` (or `N.variables` in a batch), walk own properties only, never name
 * `__proto__`, `prototype` or `constructor`, and end at a `null`.
 */
import { Upload } from './upload';

export class MapError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413,
  ) {
    super(message);
    this.name = 'MapError';
  }
}

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);
const INDEX = /^(0|[1-9][0-9]*)$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

type Container = Record<string, unknown> | unknown[];

/** The container and key a path ends at, validated; throws MapError. */
function resolvePath(operations: unknown, path: string): { container: Container; key: string } {
  const bad = (why: string) => new MapError(`Invalid 'map' path ${JSON.stringify(path)}: ${why}`, 400);
  const segments = path.split('.');
  if (segments.some((s) => FORBIDDEN.has(s))) throw bad('forbidden segment');
  const variablesAt = Array.isArray(operations) ? 1 : 0;
  if (segments.length < variablesAt + 2 || segments[variablesAt] !== 'variables')
    throw bad('must point inside the operation variables');
  let node: unknown = operations;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const last = i === segments.length - 1;
    let exists: boolean;
    if (Array.isArray(node)) exists = INDEX.test(seg) && Number(seg) < node.length;
    else if (isPlainObject(node)) exists = Object.prototype.hasOwnProperty.call(node, seg);
    else throw bad('walks through a value that is not an object or array');
    if (!exists) throw bad('does not exist in operations');
    if (last) {
      if ((node as Record<string, unknown>)[seg] !== null) throw bad('must point at a null');
      return { container: node as Container, key: seg };
    }
    node = (node as Record<string, unknown>)[seg];
  }
  throw bad('is empty');
}

/**
 * Validates `map` (already JSON-parsed) against `operations` and puts one Upload per map entry at
 * every path it names. Returns the uploads by file field name.
 */
export function applyMap(operations: unknown, map: unknown, maxFiles: number): Map<string, Upload> {
  if (!isPlainObject(map)) throw new MapError("Invalid type for the 'map' multipart field: must be an object", 400);
  const entries = Object.entries(map);
  if (entries.length > maxFiles) throw new MapError(`${maxFiles} max file uploads exceeded.`, 413);
  const uploads = new Map<string, Upload>();
  for (const [field, paths] of entries) {
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) {
      throw new MapError(`Invalid 'map' entry ${JSON.stringify(field)}: must be a non-empty array of paths`, 400);
    }
    const targets = (paths as string[]).map((p) => resolvePath(operations, p));
    const upload = new Upload();
    // One file may fill several places (apollo-upload-client maps the same File object once).
    upload.uses = targets.length;
    for (const { container, key } of targets) {
      if ((container as Record<string, unknown>)[key] !== null) {
        throw new MapError(`Invalid 'map' entry ${JSON.stringify(field)}: a path is mapped twice`, 400);
      }
      (container as Record<string, unknown>)[key] = upload;
    }
    uploads.set(field, upload);
  }
  return uploads;
}
