/**
 * Metadata of stored files: one document per file, unique on `filename` (docs/files-api.md §13).
 * The filename is the document's `_id`: the primary key makes names unique and is the lookup that
 * every read does, which stays fast even on servers without secondary-index support (FerretDB on
 * SQLite scans for any other field). The only code that touches the `files` collection.
 */
import mongoose, { Model, Schema } from 'mongoose';
import type { Database } from '../db/connection';
import { InsertBatcher, type Linger } from './insert-batcher';

export interface FileRecord {
  /** The filename (primary key). */
  _id: string;
  /** The filename again, for readability of the collection. */
  filename: string;
  /** Internal id of the bytes in the byte store. */
  objectId: string;
  size: number;
  sha256: string;
  mimetype: string;
  /** Unix seconds; 0 = never. */
  expiry: number;
  deleteKeyHash: string;
  accessKeyHash: string | null;
  /** When the current bytes were committed (upload or last overwrite). */
  committedAt: Date;
}

export type FileContent = Omit<FileRecord, '_id' | 'filename'>;

const schema = new Schema<FileRecord>(
  {
    _id: { type: String, required: true },
    filename: { type: String, required: true },
    objectId: { type: String, required: true },
    size: { type: Number, required: true },
    sha256: { type: String, required: true },
    mimetype: { type: String, required: true },
    expiry: { type: Number, required: true },
    deleteKeyHash: { type: String, required: true },
    accessKeyHash: { type: String, default: null },
    committedAt: { type: Date, required: true },
  },
  { collection: 'files', versionKey: false },
);
schema.index({ expiry: 1 });
schema.index({ objectId: 1 });

/** MongoDB's duplicate-key error (E11000), raised by the unique index on a taken name. */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 11000;
}

/**
 * Every metadata write is on disk before it is answered (writeConcern j: true): an upload is
 * acknowledged as durable (docs/files-api.md §13), and an overwrite or delete releases the old bytes
 * right after its write, so a write lost to a power cut would leave metadata pointing at bytes that
 * are gone. MongoDB otherwise acknowledges a write before its journal is synced (every 100 ms), and
 * so does the embedded database (docs/embedded-database.md, patch 0016).
 */
const JOURNALED = { writeConcern: { journal: true } } as const;

export class FileRepository {
  private readonly model: Model<FileRecord>;
  /** Concurrent claims of new names share one insert (insert-batcher.ts). */
  private readonly inserts: InsertBatcher<FileRecord>;

  /** `linger`: how long an insert waits for those of other uploads in flight (insert-batcher.ts). */
  constructor(db: Database, linger?: Linger) {
    this.model = db.model<FileRecord>('FileRecord', schema);
    this.inserts = new InsertBatcher<FileRecord>(() => this.coll, JOURNALED, linger);
  }

  /** The driver's collection: hot paths skip mongoose's casting and hydration. */
  private get coll(): mongoose.mongo.Collection<FileRecord> {
    return this.model.collection as unknown as mongoose.mongo.Collection<FileRecord>;
  }

  findByName(filename: string): Promise<FileRecord | null> {
    return this.coll.findOne({ _id: filename });
  }

  /** Which of these names some file holds. */
  async takenOf(filenames: string[]): Promise<Set<string>> {
    const docs = await this.coll.find({ _id: { $in: filenames } }, { projection: { _id: 1 } }).toArray();
    return new Set(docs.map((d) => d._id));
  }

  /** Claims `filename`; returns false when the name is taken (unique index), never overwrites. */
  insert(filename: string, content: FileContent): Promise<boolean> {
    return this.inserts.insert({ _id: filename, filename, ...content });
  }

  /**
   * Switches the file to new content in one atomic update, only if it still holds the bytes the
   * caller saw (`expectedObjectId`). False when it changed or vanished meanwhile.
   */
  async replaceContent(filename: string, expectedObjectId: string, content: FileContent): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: filename, objectId: expectedObjectId }, { $set: content }, JOURNALED);
    return res.matchedCount === 1;
  }

  /** Deletes the file only if it still holds `expectedObjectId` (a concurrent overwrite wins). */
  async deleteIfUnchanged(filename: string, expectedObjectId: string): Promise<boolean> {
    const res = await this.coll.deleteOne({ _id: filename, objectId: expectedObjectId }, JOURNALED);
    return res.deletedCount === 1;
  }

  /** Files whose expiry lies before `nowSeconds` (at most `limit`). */
  findExpired(nowSeconds: number, limit: number): Promise<FileRecord[]> {
    return this.model
      .find({ expiry: { $gt: 0, $lt: nowSeconds } })
      .limit(limit)
      .lean<FileRecord[]>()
      .exec();
  }

  /** Which of these object ids some file still refers to. */
  async referencedObjects(objectIds: string[]): Promise<Set<string>> {
    if (objectIds.length === 0) return new Set();
    const docs = await this.model
      .find({ objectId: { $in: objectIds } }, { objectId: 1, _id: 0 })
      .lean<{ objectId: string }[]>()
      .exec();
    return new Set(docs.map((d) => d.objectId));
  }
}
