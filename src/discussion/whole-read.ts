/**
 * The hot reads of whole documents (a topic's comments, documents by id), through the driver's
 * public find: its server selection, read preference and read concern (from the URI), retryable
 * reads and cursor clean-up (a failed read closes its cursor) are those of every other read.
 *
 * The documents come back raw (`raw: true`: each document's BSON bytes, not decoded by the driver)
 * and are decoded here in one pass with the driver's default options, so they are those `.lean()`
 * gives. Why: decoded by the cursor, each document is first parsed into a lazy view of its fields
 * and then decoded from it, and the command monitoring (command-meter.ts) decodes a decoded reply
 * once more; with raw documents neither happens (bench/README.md, issue 41).
 */
import mongoose from 'mongoose';

type Collection = mongoose.mongo.Collection;

export type WholeRead = {
  filter: Record<string, unknown>;
  /** None: the database's order. */
  sort?: Record<string, 1 | -1>;
  projection?: Record<string, 0 | 1>;
} & (
  | {
      /** Documents per reply; the server may send fewer (MongoDB: at most 16 MiB a reply). */
      batchSize: number;
      limit?: undefined;
    }
  | {
      /** At most this many documents, in one reply (a page of a listing). */
      limit: number;
      batchSize?: undefined;
    }
);

/** What readWhole needs of a model: its connection and its collection's name. */
interface ModelLike {
  db: mongoose.Connection;
  collection: { collectionName: string };
}

/** The driver's own collection of each (open) database, by name. */
const collections = new WeakMap<mongoose.mongo.Db, Map<string, Collection>>();

function collectionOf(model: ModelLike): Collection {
  const db = model.db.db;
  if (!db) throw new Error('the database connection is not open');
  let byName = collections.get(db);
  if (!byName) collections.set(db, (byName = new Map()));
  const name = model.collection.collectionName;
  let collection = byName.get(name);
  if (!collection) byName.set(name, (collection = db.collection(name)));
  return collection;
}

/** A document's BSON as `.lean()` decodes it (the driver's default options). */
function decode<T>(bytes: Uint8Array): T {
  return mongoose.mongo.BSON.deserialize(bytes) as T;
}

/** The raw documents of a find: `raw: true` makes the driver hand out each document's bytes. */
function findRaw(
  model: ModelLike,
  filter: Record<string, unknown>,
  options: mongoose.mongo.FindOptions,
): Promise<Uint8Array[]> {
  return findRawIn(collectionOf(model), filter, options);
}

async function findRawIn(
  collection: Collection,
  filter: Record<string, unknown>,
  options: mongoose.mongo.FindOptions,
): Promise<Uint8Array[]> {
  return (await collection.find(filter, { ...options, raw: true }).toArray()) as unknown as Uint8Array[];
}

/** The reads by id waiting for the end of this turn of the event loop, by collection, by id. */
type Waiter = { resolve(doc: unknown): void; reject(err: unknown): void };
const waiting = new Map<Collection, Map<string, { id: number | string; waiters: Waiter[] }>>();

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;

/**
 * The document whose `_id` is `id`, or null. The reads by id of every request (the caller's user
 * record, a topic, a comment, a topic's comment version) made in the same turn of the event loop on
 * the same collection go to the database together, as one find of their ids (`_id: {$in: …}`): under
 * load many requests read the same few collections at once, and each find costs a round trip and
 * an operation of the driver (an implicit session, server selection, a cursor, the monitoring
 * events). A read alone in its turn is the find of one document (`_id: id`). Every caller gets a
 * document decoded for it alone.
 */
export function readById<T>(model: ModelLike, id: number | string): Promise<T | null> {
  // What mongoose would refuse to cast; no stored document has such an id.
  if (typeof id === 'number' && !Number.isFinite(id)) return Promise.resolve(null);
  const collection = collectionOf(model);
  let batch = waiting.get(collection);
  if (!batch) {
    waiting.set(collection, (batch = new Map()));
    setImmediate(() => void sendBatch(collection));
  }
  const key = idKey(id);
  let entry = batch.get(key);
  if (!entry) batch.set(key, (entry = { id, waiters: [] }));
  const waiters = entry.waiters;
  return new Promise<T | null>((resolve, reject) => waiters.push({ resolve, reject }));
}

/** Sends the reads by id waiting on `collection` as one find, and gives each caller its document. */
async function sendBatch(collection: Collection): Promise<void> {
  const batch = waiting.get(collection)!;
  waiting.delete(collection);
  const entries = [...batch.values()];
  try {
    const found =
      entries.length === 1
        ? await findRawIn(collection, { _id: entries[0]!.id }, { limit: -1 })
        : // One more than can match, so the first reply holds them all and leaves no cursor open.
          await findRawIn(collection, { _id: { $in: entries.map((e) => e.id) } }, { batchSize: entries.length + 1 });
    for (const bytes of found) {
      const doc = decode<{ _id: unknown }>(bytes);
      // Alone, the read's answer is its document, whatever type the stored `_id` decodes to.
      const key = entries.length === 1 ? idKey(entries[0]!.id) : idKey(doc._id);
      const entry = batch.get(key);
      if (!entry) continue;
      batch.delete(key);
      entry.waiters.forEach((w, i) => w.resolve(i === 0 ? doc : decode(bytes)));
    }
    for (const entry of batch.values()) for (const w of entry.waiters) w.resolve(null);
  } catch (err) {
    for (const entry of entries) for (const w of entry.waiters) w.reject(err);
  }
}

/** The first document `filter` matches (by a unique index, so the only one), or null; as readById. */
export async function readOne<T>(model: ModelLike, filter: Record<string, unknown>): Promise<T | null> {
  // A negative limit: at most one document, in one reply, and no cursor left open.
  const [bytes] = await findRaw(model, filter, { limit: -1 });
  return bytes ? decode<T>(bytes) : null;
}

/** The documents whose `_id` is one of `ids` (in no particular order), as readById reads one. */
export function readByIds<T>(model: ModelLike, ids: readonly number[]): Promise<T[]> {
  const wanted = ids.filter((id) => Number.isFinite(id));
  if (wanted.length === 0) return Promise.resolve([]);
  // One more than can match, so the first reply holds them all and leaves no cursor open.
  return readWhole<T>(model, { filter: { _id: { $in: wanted } }, batchSize: wanted.length + 1 });
}

/** Every document `read` matches, in its sort order. */
export async function readWhole<T>(model: ModelLike, read: WholeRead): Promise<T[]> {
  const options: mongoose.mongo.FindOptions = {};
  if (read.sort) options.sort = read.sort;
  if (read.projection && Object.keys(read.projection).length > 0) options.projection = read.projection;
  // A page: at most `limit` documents, in one reply (a negative limit asks for a single batch).
  if (read.limit !== undefined) {
    options.limit = -Math.max(read.limit, 1);
    options.batchSize = Math.max(read.limit, 1);
  } else options.batchSize = read.batchSize;
  const raw = await findRaw(model, read.filter, options);
  const docs = new Array<T>(raw.length);
  for (let i = 0; i < raw.length; i++) docs[i] = decode<T>(raw[i]!);
  return docs;
}
