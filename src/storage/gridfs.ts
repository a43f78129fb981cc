/**
 * GridFS byte store, for several stateless instances sharing one database. Objects are GridFS
 * files named by their ObjectId. Two small collections make failures recoverable:
 *   <bucket>.pending   one document per upload in flight (host, pid, heartbeat), removed once
 *                      metadata refers to the object; what a crash leaves is found here
 *   <bucket>.released  objects given up by an overwrite or delete; removed after the grace
 *                      period, so reads that started before the switch can finish
 */
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import mongoose from 'mongoose';
import { HOST_TAG, processAlive } from './disk';
import { ByteRange, ByteStore, GRACE_PERIOD_MS, ObjectGoneError, ReferenceCheck, TempObject } from './store';

type Db = mongoose.mongo.Db;
type ObjectId = mongoose.mongo.ObjectId;
const { GridFSBucket, ObjectId: OID } = mongoose.mongo;

const CHUNK_SIZE = 255 * 1024;
/** How often an upload in flight refreshes its pending document. */
const HEARTBEAT_MS = 60 * 1000;

interface PendingDoc {
  _id: ObjectId;
  host: string;
  pid: number;
  startedAt: Date;
  touchedAt: Date;
}

interface ReleasedDoc {
  _id: ObjectId;
  releasedAt: Date;
}

function toOid(id: string): ObjectId {
  if (!/^[0-9a-f]{24}$/.test(id)) throw new Error(`invalid object id ${JSON.stringify(id)}`);
  return new OID(id);
}

export class GridFsStore implements ByteStore {
  readonly kind = 'gridfs' as const;
  private readonly bucket: mongoose.mongo.GridFSBucket;
  private readonly files;
  private readonly chunks;
  private readonly pending;
  private readonly released;

  constructor(db: Db, bucketName = 'filedata') {
    this.bucket = new GridFSBucket(db, { bucketName, chunkSizeBytes: CHUNK_SIZE });
    this.files = db.collection(`${bucketName}.files`);
    this.chunks = db.collection(`${bucketName}.chunks`);
    this.pending = db.collection<PendingDoc>(`${bucketName}.pending`);
    this.released = db.collection<ReleasedDoc>(`${bucketName}.released`);
  }

  /** Creates the indexes GridFS reads rely on (idempotent). */
  async ensureIndexes(): Promise<void> {
    await this.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true });
    await this.files.createIndex({ filename: 1, uploadDate: 1 });
  }

  async create(): Promise<TempObject> {
    const oid = new OID();
    const id = oid.toHexString();
    const now = new Date();
    await this.pending.insertOne({ _id: oid, host: HOST_TAG, pid: process.pid, startedAt: now, touchedAt: now });
    const stream = this.bucket.openUploadStreamWithId(oid, id);
    let lastTouch = now.getTime();
    let committed = false;
    let failed: Error | undefined;
    /** The write in progress: chunk inserts must land before abort deletes what was written. */
    let inflight: Promise<void> = Promise.resolve();
    stream.on('error', (err) => {
      failed ??= err;
    });
    const removeObject = () => this.removeObject(oid);
    const pending = this.pending;
    return {
      id,
      write(chunk) {
        if (failed) return Promise.reject(failed);
        const t = Date.now();
        if (t - lastTouch > HEARTBEAT_MS) {
          lastTouch = t;
          pending.updateOne({ _id: oid }, { $set: { touchedAt: new Date(t) } }).catch(() => {});
        }
        const done = new Promise<void>((resolve, reject) => {
          stream.write(chunk, (err) => (err ? reject(err) : resolve()));
        });
        inflight = done.catch(() => {});
        return done;
      },
      async commit() {
        if (failed) throw failed;
        await new Promise<void>((resolve, reject) => {
          stream.once('error', reject);
          stream.end(() => resolve());
        });
        committed = true;
      },
      async settle() {
        await pending.deleteOne({ _id: oid });
      },
      async abort() {
        await inflight;
        if (!committed && !stream.destroyed) stream.destroy();
        await removeObject();
        await pending.deleteOne({ _id: oid });
      },
    };
  }

  private async removeObject(oid: ObjectId): Promise<void> {
    await this.files.deleteOne({ _id: oid });
    await this.chunks.deleteMany({ files_id: oid });
  }

  async openRead(id: string, range?: ByteRange): Promise<Readable> {
    const stream = this.bucket.openDownloadStream(toOid(id), range ? { start: range.start, end: range.end + 1 } : {});
    // Wait until GridFS found the file document, so a missing object fails before headers are sent.
    const found = once(stream, 'file');
    stream.read(0);
    try {
      await found;
    } catch (err) {
      stream.destroy();
      const code = (err as { code?: unknown }).code;
      if (code === 'ENOENT' || /FileNotFound|not found/i.test(String((err as Error).message))) throw new ObjectGoneError(id);
      throw err;
    }
    return stream;
  }

  async release(id: string): Promise<void> {
    await this.released.updateOne({ _id: toOid(id) }, { $set: { releasedAt: new Date() } }, { upsert: true });
  }

  /** Removes a dead upload's bytes unless metadata refers to them (a crash after the metadata write). */
  private async buryPending(doc: PendingDoc, isReferenced: ReferenceCheck): Promise<boolean> {
    const id = doc._id.toHexString();
    const referenced = await isReferenced([id]);
    if (!referenced.has(id)) await this.removeObject(doc._id);
    await this.pending.deleteOne({ _id: doc._id, touchedAt: doc.touchedAt });
    return !referenced.has(id);
  }

  async recover(isReferenced: ReferenceCheck): Promise<number> {
    const cutoff = new Date(Date.now() - GRACE_PERIOD_MS);
    let removed = 0;
    for (const doc of await this.pending.find({}).toArray()) {
      const mine = doc.host === HOST_TAG && (doc.pid === process.pid || !processAlive(doc.pid));
      if ((mine || doc.touchedAt < cutoff) && (await this.buryPending(doc, isReferenced))) removed++;
    }
    return removed;
  }

  async collect(isReferenced: ReferenceCheck, options: { full: boolean }): Promise<number> {
    const cutoff = new Date(Date.now() - GRACE_PERIOD_MS);
    let removed = 0;
    for (const doc of await this.pending.find({ touchedAt: { $lt: cutoff } }).toArray()) {
      if (await this.buryPending(doc, isReferenced)) removed++;
    }
    const released = await this.released.find({ releasedAt: { $lt: cutoff } }).toArray();
    for (let i = 0; i < released.length; i += 500) {
      const batch = released.slice(i, i + 500);
      const referenced = await isReferenced(batch.map((d) => d._id.toHexString()));
      for (const doc of batch) {
        if (!referenced.has(doc._id.toHexString())) {
          await this.removeObject(doc._id);
          removed++;
        }
        await this.released.deleteOne({ _id: doc._id });
      }
    }
    if (options.full) {
      const inFlight = new Set((await this.pending.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id.toHexString()));
      const cursor = this.files.find({ uploadDate: { $lt: cutoff } }, { projection: { _id: 1 } });
      let batch: ObjectId[] = [];
      const flush = async () => {
        const ids = batch.map((o) => o.toHexString());
        const referenced = await isReferenced(ids);
        for (const o of batch) {
          const id = o.toHexString();
          if (!referenced.has(id) && !inFlight.has(id)) {
            await this.removeObject(o);
            removed++;
          }
        }
        batch = [];
      };
      for await (const doc of cursor) {
        batch.push(doc._id as ObjectId);
        if (batch.length >= 500) await flush();
      }
      if (batch.length > 0) await flush();
    }
    return removed;
  }
}
