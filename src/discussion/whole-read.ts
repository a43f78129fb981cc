/**
 * Reads whose whole answer is wanted at once (a topic's comments): the find command itself, then
 * getMore while the server says more remain, instead of a driver cursor.
 *
 * Why: the driver's cursor keeps a batch as a lazily parsed view and wraps every document in
 * another (an index of its fields, kept until the batch is done) before decoding it. For the 5,000
 * comments of one topic that cost more CPU than the decoding itself (~55 ms instead of ~25 ms on
 * the bench machine) and most of a read's garbage. The command's reply is decoded in one pass with
 * the driver's default options, so the documents are those `.lean()` gives.
 */
import mongoose from 'mongoose';

type Long = mongoose.mongo.Long;

interface CursorReply<T> {
  cursor: { id: number | Long; firstBatch?: T[]; nextBatch?: T[] };
}

export interface WholeRead {
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  projection?: Record<string, 0>;
  /** Documents per reply; the server may send fewer (MongoDB: at most 16 MiB a reply). */
  batchSize: number;
}

/** What readWhole needs of a model: its connection and its collection's name. */
interface ModelLike {
  db: mongoose.Connection;
  collection: { collectionName: string };
}

/** Every document `read` matches, in its sort order. */
export async function readWhole<T>(model: ModelLike, read: WholeRead): Promise<T[]> {
  const db = model.db.db;
  if (!db) throw new Error('readWhole: the database connection is not open');
  const collection = model.collection.collectionName;
  const first = (await db.command({
    find: collection,
    filter: read.filter,
    sort: read.sort,
    ...(read.projection && Object.keys(read.projection).length > 0 ? { projection: read.projection } : {}),
    batchSize: read.batchSize,
  })) as CursorReply<T>;
  const docs = first.cursor.firstBatch ?? [];
  let id = first.cursor.id;
  while (!isZero(id)) {
    // An id that fits in a double comes back as a number (exactly); getMore wants it as a long.
    const next = (await db.command({
      getMore: typeof id === 'number' ? mongoose.mongo.Long.fromNumber(id) : id,
      collection,
      batchSize: read.batchSize,
    })) as CursorReply<T>;
    for (const doc of next.cursor.nextBatch ?? []) docs.push(doc);
    id = next.cursor.id;
  }
  return docs;
}

function isZero(id: number | Long): boolean {
  return typeof id === 'number' ? id === 0 : id.isZero();
}
