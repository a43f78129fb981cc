/**
 * The commands a test server's app sends and the answers it gets, in order, with what durability
 * tests ask of them: the ids a write touches and whether it asked for the journal (`j: true`). A
 * command's sending and its answer share the command object, which pairs them.
 */
import { watchingCommands } from './exchanges';
import type { TestServer } from './server';

export type Command = Record<string, unknown>;

export interface Logged {
  what: 'sent' | 'answered';
  name: string;
  /** The collection the command names (`insert: 'files'` → 'files'). */
  collection: string;
  ids: string[];
  /** writeConcern.j as sent. */
  j: unknown;
  command: Command;
}

/**
 * The ids of documents a write command touches: inserted `_id`/`files_id`/`objectId`, and the
 * `_id` or `files_id` (a GridFS chunk's object) an update or delete selects.
 */
export function idsOf(name: string, c: Command): string[] {
  const ids: unknown[] = [];
  if (name === 'insert') {
    for (const d of c.documents as Command[]) ids.push(d.objectId, d.files_id, d._id);
  } else if (name === 'update' || name === 'delete') {
    const list = (c.updates ?? c.deletes) as { q: Command }[];
    for (const u of list) ids.push(u.q._id, u.q.files_id);
  }
  return ids.filter((v) => v !== undefined && v !== null).map(String);
}

/** Runs fn and returns the commands sent and answered meanwhile, in order. */
export async function commandLog(s: TestServer, fn: () => Promise<unknown>): Promise<Logged[]> {
  const log: Logged[] = [];
  const note = (what: Logged['what']) => (name: string, command: Command) =>
    log.push({
      what,
      name,
      collection: String(command[name]),
      ids: idsOf(name, command),
      j: (command.writeConcern as Command | undefined)?.j,
      command,
    });
  await watchingCommands(s, fn, note('sent'), note('answered'));
  return log;
}

/** Where the command sent at `sent` was answered (-1: not in the log). */
export function answerOf(log: readonly Logged[], sent: number): number {
  return log.findIndex((e, i) => i > sent && e.what === 'answered' && e.command === log[sent]!.command);
}

/**
 * Whether the writes `bytes` picks among those sent in log[from, before) were journaled before
 * log[before] was sent: a journaled write (`j: true`) that `bytes` or `barrier` picks was sent
 * after every other one of them was answered, and was itself answered before log[before]. The
 * journal is a log synced up to that write, so every write acknowledged before it is durable too.
 * False when there are no such writes.
 */
export function journaledBefore(
  log: readonly Logged[],
  before: number,
  bytes: (e: Logged) => boolean,
  barrier: (e: Logged) => boolean,
  from = 0,
): boolean {
  const sent = (e: Logged, i: number) => i >= from && i < before && e.what === 'sent';
  const writes = log.map((e, i) => (sent(e, i) && bytes(e) ? i : -1)).filter((i) => i >= 0);
  if (writes.length === 0) return false;
  return log.some((e, w) => {
    if (!sent(e, w) || e.j !== true || !(bytes(e) || barrier(e))) return false;
    const answered = answerOf(log, w);
    if (answered < 0 || answered >= before) return false;
    return writes.every((b) => {
      if (b === w) return true;
      const a = answerOf(log, b);
      return a >= 0 && a < w;
    });
  });
}

/** The collections of the GridFS bucket 'filedata' that hold an object's bytes. */
export const GRIDFS_BYTES = ['filedata.chunks', 'filedata.files'];

/** The commands on a GridFS object `id`: on its bucket's collections (chunks, files, markers) naming it. */
export function onGridFsObject(id: string, bucket = 'filedata'): (e: Logged) => boolean {
  return (e) => e.collection.startsWith(`${bucket}.`) && e.ids.includes(id);
}
