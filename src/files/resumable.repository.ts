/**
 * Resumable uploads in progress (docs/files-api.md §4.9): one document per upload, keyed by the
 * SHA-256 of its URL's secret token, holding what every instance needs to continue it (offset,
 * length, the partial object's id, the sealed creation options) and the lease of the one request
 * writing to it. The only code that touches the `resumable_uploads` collection.
 */
import mongoose from 'mongoose';
import type { Database } from '../db/connection';

export interface ResumableRecord {
  /** Hex SHA-256 of the upload URL's token. */
  _id: string;
  objectId: string;
  length: number;
  /** Bytes durably stored and recorded. */
  offset: number;
  /** The creation request's Upload-Metadata, as sent ('' when none). */
  metadata: string;
  /** The upload options (names, keys, expiry), sealed with a key derived from the token. */
  sealed: string;
  /** The finished upload's result, sealed alike; null while unfinished. */
  result: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** The request writing now, and until when its lease holds. */
  lockOwner: string | null;
  lockUntil: Date | null;
}

const JOURNALED = { writeConcern: { journal: true } } as const;

export class ResumableRepository {
  private readonly coll: mongoose.mongo.Collection<ResumableRecord>;

  constructor(db: Database) {
    const native = db.conn.db;
    if (!native) throw new Error('the database connection is not open');
    this.coll = native.collection<ResumableRecord>('resumable_uploads');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ expiresAt: 1 });
  }

  insert(record: ResumableRecord): Promise<unknown> {
    return this.coll.insertOne(record, JOURNALED);
  }

  find(id: string): Promise<ResumableRecord | null> {
    return this.coll.findOne({ _id: id });
  }

  /** Takes the write lease unless another request holds a live one; the record, or null when held. */
  lock(id: string, owner: string, now: Date, leaseMs: number): Promise<ResumableRecord | null> {
    return this.coll.findOneAndUpdate(
      { _id: id, $or: [{ lockOwner: null }, { lockUntil: { $lt: now } }] },
      { $set: { lockOwner: owner, lockUntil: new Date(now.getTime() + leaseMs) } },
      { returnDocument: 'after' },
    );
  }

  /** Extends a lease still held; false when it was lost. */
  async renew(id: string, owner: string, now: Date, leaseMs: number): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: id, lockOwner: owner },
      { $set: { lockUntil: new Date(now.getTime() + leaseMs) } },
    );
    return res.matchedCount === 1;
  }

  /** Records the new offset under the lease (journaled: the bytes are durable already). */
  async advance(id: string, owner: string, from: number, to: number): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: id, lockOwner: owner, offset: from },
      { $set: { offset: to } },
      JOURNALED,
    );
    return res.matchedCount === 1;
  }

  async finish(id: string, owner: string, result: string): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: id, lockOwner: owner }, { $set: { result } }, JOURNALED);
    return res.matchedCount === 1;
  }

  unlock(id: string, owner: string): Promise<unknown> {
    return this.coll.updateOne({ _id: id, lockOwner: owner }, { $set: { lockOwner: null, lockUntil: null } });
  }

  async remove(id: string, owner: string): Promise<boolean> {
    const res = await this.coll.deleteOne({ _id: id, lockOwner: owner }, JOURNALED);
    return res.deletedCount === 1;
  }

  /** Uploads past their expiry that no live lease protects (at most `limit`). */
  findExpired(now: Date, limit: number): Promise<ResumableRecord[]> {
    return this.coll
      .find({ expiresAt: { $lt: now }, $or: [{ lockOwner: null }, { lockUntil: { $lt: now } }] })
      .limit(limit)
      .toArray();
  }
}
