/**
 * Metadata of stored files: one document per file, unique on `filename` (files-behaviour.md §13).
 * The only code that touches the `files` collection; returns plain objects.
 */
import { Model, Schema, Types } from 'mongoose';
import type { Database } from '../db/connection';

export interface FileRecord {
  _id: Types.ObjectId;
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
schema.index({ filename: 1 }, { unique: true });
schema.index({ expiry: 1 });
schema.index({ objectId: 1 });

/** MongoDB's duplicate-key error (E11000), raised by the unique index on a taken name. */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown })?.code === 11000;
}

export class FileRepository {
  private readonly model: Model<FileRecord>;

  constructor(db: Database) {
    this.model = db.model<FileRecord>('FileRecord', schema);
  }

  findByName(filename: string): Promise<FileRecord | null> {
    return this.model.findOne({ filename }).lean<FileRecord>().exec();
  }

  /** Claims `filename`; returns false when the name is taken (unique index), never overwrites. */
  async insert(filename: string, content: FileContent): Promise<boolean> {
    try {
      await this.model.collection.insertOne({ filename, ...content });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /**
   * Switches the file to new content in one atomic update, only if it still holds the bytes the
   * caller saw (`expectedObjectId`). False when it changed or vanished meanwhile.
   */
  async replaceContent(id: Types.ObjectId, expectedObjectId: string, content: FileContent): Promise<boolean> {
    const res = await this.model.updateOne({ _id: id, objectId: expectedObjectId }, { $set: content }).exec();
    return res.matchedCount === 1;
  }

  /** Deletes the file only if it still holds `expectedObjectId` (a concurrent overwrite wins). */
  async deleteIfUnchanged(id: Types.ObjectId, expectedObjectId: string): Promise<boolean> {
    const res = await this.model.deleteOne({ _id: id, objectId: expectedObjectId }).exec();
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
