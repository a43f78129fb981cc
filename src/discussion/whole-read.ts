/**
 * Reads whose whole answer is wanted at once (a topic's comments, documents by id): the find command
 * itself, then getMore while the server says more remain, instead of a driver cursor.
 *
 * Why: the driver's cursor keeps a batch as a lazily parsed view and wraps every document in
 * another (an index of its fields, kept until the batch is done) before decoding it. For the 5,000
 * comments of one topic that cost more CPU than the decoding itself and most of a read's garbage
 * (bench/api.js, the uncached topic). The command's reply is decoded in one pass with
 * the driver's default options, so the documents are those `.lean()` gives.
 */
import mongoose from 'mongoose';
import { directCommand } from '../db/direct-command';

type Long = mongoose.mongo.Long;

interface CursorReply<T> {
  cursor: { id: number | Long; firstBatch?: T[]; nextBatch?: T[] };
}

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

function openDb(model: ModelLike): mongoose.mongo.Db {
  const db = model.db.db;
  if (!db) throw new Error('the database connection is not open');
  return db;
}

/**
 * The document whose `_id` is `id`, or null: one find command of one document. The reads by id
 * of every request (the caller's user record, a topic, a comment, a topic's comment version) take
 * less CPU this way than through mongoose's findById(…).lean() and the driver's cursor
 * (bench/api.js, server CPU per request).
 */
export function readById<T>(model: ModelLike, id: number | string): Promise<T | null> {
  // What mongoose would refuse to cast; no stored document has such an id.
  if (typeof id === 'number' && !Number.isFinite(id)) return Promise.resolve(null);
  return readOne<T>(model, { _id: id });
}

/** The first document `filter` matches (by a unique index, so the only one), or null; as readById. */
export async function readOne<T>(model: ModelLike, filter: Record<string, unknown>): Promise<T | null> {
  const reply = (await directCommand(openDb(model), {
    find: model.collection.collectionName,
    filter,
    limit: 1,
    singleBatch: true,
  })) as CursorReply<T>;
  return reply.cursor.firstBatch?.[0] ?? null;
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
  const db = openDb(model);
  const collection = model.collection.collectionName;
  const batchSize = read.limit !== undefined ? Math.max(read.limit, 1) : read.batchSize;
  const first = (await directCommand(db, {
    find: collection,
    filter: read.filter,
    ...(read.sort ? { sort: read.sort } : {}),
    ...(read.projection && Object.keys(read.projection).length > 0 ? { projection: read.projection } : {}),
    ...(read.limit !== undefined ? { limit: read.limit, singleBatch: true } : {}),
    batchSize,
  })) as CursorReply<T>;
  const docs = first.cursor.firstBatch ?? [];
  let id = first.cursor.id;
  while (!isZero(id)) {
    // An id that fits in a double comes back as a number (exactly); getMore wants it as a long.
    const next = (await directCommand(db, {
      getMore: typeof id === 'number' ? mongoose.mongo.Long.fromNumber(id) : id,
      collection,
      batchSize,
    })) as CursorReply<T>;
    for (const doc of next.cursor.nextBatch ?? []) docs.push(doc);
    id = next.cursor.id;
  }
  return docs;
}

function isZero(id: number | Long): boolean {
  return typeof id === 'number' ? id === 0 : id.isZero();
}
