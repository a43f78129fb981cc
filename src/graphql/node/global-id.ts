/**
 * Global object ids (Relay's Global Object Identification): base64 of `Type:key`, unique across
 * the whole schema, so a normalised cache (Apollo, Relay, urql) can key every record by `id`
 * alone. The keys are the REST ones: a topic's or comment's id36, a lowercased username, a group
 * path, a stored filename. Ids are opaque to clients; only this module reads them.
 */
import { ValidationError } from '../../core/errors';

export type NodeTypeName = 'Topic' | 'Comment' | 'User' | 'Group' | 'FileInfo';

const TYPES: ReadonlySet<string> = new Set<NodeTypeName>(['Topic', 'Comment', 'User', 'Group', 'FileInfo']);

/**
 * Ids already encoded, per type. A 5,000-comment tree needs 5,000 comment ids per read; a map lookup
 * costs far less than encoding them again (bench/api.js, GraphQL topic). Bounded: a type's map is
 * emptied when full.
 */
const MEMO_LIMIT = 100_000;
const memos = new Map<NodeTypeName, Map<string, string>>();

export function toGlobalId(type: NodeTypeName, key: string): string {
  let memo = memos.get(type);
  if (!memo) memos.set(type, (memo = new Map()));
  let id = memo.get(key);
  if (id === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    id = Buffer.from(`${type}:${key}`, 'utf8').toString('base64');
    memo.set(key, id);
  }
  return id;
}

/** The type and key of a global id; null for anything this server did not issue. */
export function fromGlobalId(id: string): { type: NodeTypeName; key: string } | null {
  if (id.length === 0 || id.length > 400 || !/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return null;
  const text = Buffer.from(id, 'base64').toString('utf8');
  // Only the canonical spelling: one record, one id.
  if (Buffer.from(text, 'utf8').toString('base64') !== id) return null;
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  const type = text.slice(0, colon);
  const key = text.slice(colon + 1);
  if (!TYPES.has(type) || key.length === 0) return null;
  return { type: type as NodeTypeName, key };
}

/** How every argument naming a topic or a comment describes what it accepts. */
export const TOPIC_ID_DESCRIPTION = 'The topic: its global `id`, or its `id36` (the REST id).';
export const COMMENT_ID_DESCRIPTION = 'The comment: its global `id`, or its `id36` (the REST id).';

/**
 * The id36 an argument names, given either a global id of `type` or the id36 itself (REST ids,
 * so a client can switch front doors mid-walk). A global id of another type is BAD_USER_INPUT on
 * `field`; anything else is handed on as an id36 (the services validate it).
 */
export function id36Of(value: string, type: 'Topic' | 'Comment', field: string): string {
  const g = fromGlobalId(value);
  if (!g) return value;
  if (g.type !== type) {
    const message = `Expected the id of a ${type} (or its id36), got the id of a ${g.type}.`;
    throw new ValidationError([{ field, message }]);
  }
  return g.key;
}
