/**
 * GridFS byte store, for several stateless instances sharing one database. Objects are GridFS
 * files named by their ObjectId. Two small collections make failures recoverable:
 *   <bucket>.pending   one document per upload in flight (host, pid, heartbeat), removed once
 *                      metadata refers to the object; what a crash leaves is found here
 *   <bucket>.released  objects given up by an overwrite or delete; removed after the grace
 *                      period, so reads that started before the switch can finish
 */
import { Readable } from 'node:stream';
import mongoose from 'mongoose';
import { isAlive } from '../core/process';
import { HOST_TAG } from './disk';
import { GridFsPartials } from './gridfs-partial';
import {
  ByteRange,
  ByteStore,
  GRACE_PERIOD_MS,
  ObjectGoneError,
  PartialObjects,
  ReferenceCheck,
  TempObject,
} from './store';

type Db = mongoose.mongo.Db;
type ObjectId = mongoose.mongo.ObjectId;
const { GridFSBucket, ObjectId: OID } = mongoose.mongo;

const CHUNK_SIZE = 255 * 1024;
/** Chunks fetched per round trip when reading (8 × 255 KiB ≈ 2 MiB). */
const READ_BATCH_CHUNKS = 8;
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
  /** Resumable uploads' chunks, without a files document until complete (gridfs-partial.ts). */
  readonly partials: PartialObjects;

  constructor(db: Db, bucketName = 'filedata') {
    this.bucket = new GridFSBucket(db, { bucketName, chunkSizeBytes: CHUNK_SIZE });
    this.files = db.collection(`${bucketName}.files`);
    this.chunks = db.collection(`${bucketName}.chunks`);
    this.pending = db.collection<PendingDoc>(`${bucketName}.pending`);
    this.released = db.collection<ReleasedDoc>(`${bucketName}.released`);
    this.partials = new GridFsPartials(this.files, this.chunks, CHUNK_SIZE);
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
        // Durable before visible: the chunks and the files document were acknowledged as written, not
        // as journaled (the database's default). One journaled write after them makes them durable
        // too: the journal (MongoDB's, one per node; the embedded database's WAL, one per database,
        // and the pending collection is in the bucket's database) is a log synced up to this write,
        // so every write acknowledged before it is in the synced part. One journal sync per upload,
        // where journaling every chunk would wait for one per 255 KiB.
        await pending.updateOne({ _id: oid }, { $set: { touchedAt: new Date() } }, { writeConcern: { j: true } });
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

  /**
   * Reads the chunks of an object (or of a byte range) in order, a few per round trip, so memory
   * per download stays at about READ_BATCH_CHUNKS chunks. (The driver's download stream lets its
   * cursor take ever larger batches.)
   */
  async openRead(id: string, range?: ByteRange): Promise<Readable> {
    const oid = toOid(id);
    const file = await this.files.findOne({ _id: oid }, { projection: { length: 1, chunkSize: 1 } });
    if (!file) throw new ObjectGoneError(id);
    const length = file.length as number;
    const chunkSize = file.chunkSize as number;
    const start = range?.start ?? 0;
    const end = Math.min(range?.end ?? length - 1, length - 1);
    if (end < start) return Readable.from([]);
    const first = Math.floor(start / chunkSize);
    const last = Math.floor(end / chunkSize);
    const cursor = this.chunks.find(
      { files_id: oid, n: { $gte: first, $lte: last } },
      { sort: { n: 1 }, batchSize: READ_BATCH_CHUNKS, projection: { _id: 0, n: 1, data: 1 } },
    );
    let expected = first;
    return new Readable({
      read() {
        cursor.next().then(
          (doc) => {
            if (!doc) {
              if (expected <= last) this.destroy(new Error(`GridFS object ${id} is missing chunk ${expected}`));
              else this.push(null);
              return;
            }
            if (doc.n !== expected) return this.destroy(new Error(`GridFS object ${id} is missing chunk ${expected}`));
            const bin = doc.data as mongoose.mongo.Binary;
            const bytes = bin.buffer.subarray(0, bin.position);
            let buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
            const offset = doc.n * chunkSize;
            if (doc.n === last) buf = buf.subarray(0, end - offset + 1);
            if (doc.n === first) buf = buf.subarray(start - offset);
            expected++;
            this.push(buf);
          },
          (err) => this.destroy(err),
        );
      },
      destroy(err, cb) {
        cursor.close().then(
          () => cb(err),
          () => cb(err),
        );
      },
    });
  }

  async exists(id: string): Promise<boolean> {
    return (await this.files.countDocuments({ _id: toOid(id) }, { limit: 1 })) > 0;
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
      const mine = doc.host === HOST_TAG && (doc.pid === process.pid || !isAlive(doc.pid));
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
      const inFlight = new Set(
        (await this.pending.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id.toHexString()),
      );
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
