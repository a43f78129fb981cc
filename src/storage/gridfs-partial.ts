/**
 * Partial objects of the GridFS store: the chunks of a resumable upload written straight into the
 * bucket's chunks collection under the object's id, without a files document; the commit adds that
 * document, which makes the chunks an ordinary GridFS object. Any instance sharing the database can
 * continue writing one. The resumable uploads' records own them (src/files/resumable.service.ts).
 */
import { Readable } from 'node:stream';
import mongoose from 'mongoose';
import type { PartialObjects, PartialWriter, TempObject } from './store';

type ObjectId = mongoose.mongo.ObjectId;
const { ObjectId: OID, Binary } = mongoose.mongo;

interface ChunkDoc {
  files_id: ObjectId;
  n: number;
  data: mongoose.mongo.Binary;
}

/** Full chunks written per round trip. */
const WRITE_BATCH_CHUNKS = 8;
const JOURNALED = { writeConcern: { j: true } } as const;

function toOid(id: string): ObjectId {
  if (!/^[0-9a-f]{24}$/.test(id)) throw new Error(`invalid object id ${JSON.stringify(id)}`);
  return new OID(id);
}

function bytesOf(bin: mongoose.mongo.Binary): Buffer {
  const b = bin.buffer.subarray(0, bin.position);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export class GridFsPartials implements PartialObjects {
  constructor(
    private readonly files: mongoose.mongo.Collection,
    private readonly chunks: mongoose.mongo.Collection,
    private readonly chunkSize: number,
  ) {}

  newId(): string {
    return new OID().toHexString();
  }

  async openWriter(id: string, offset: number): Promise<PartialWriter> {
    const oid = toOid(id);
    const size = this.chunkSize;
    const chunks = this.chunks as unknown as mongoose.mongo.Collection<ChunkDoc>;
    let n = Math.floor(offset / size);
    const rem = offset % size;
    // The chunk being filled: what the recorded offset keeps of the last one, then the new bytes.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    if (rem > 0) {
      const doc = await chunks.findOne({ files_id: oid, n });
      const data = doc ? bytesOf(doc.data) : Buffer.alloc(0);
      if (data.length < rem) throw new Error(`partial object ${id} is shorter than its recorded offset`);
      pending = [data.subarray(0, rem)];
      pendingBytes = rem;
    }
    // Chunks after the offset came from a request whose end was never recorded.
    await chunks.deleteMany({ files_id: oid, n: { $gt: rem > 0 ? n : n - 1 } });
    let written = 0;
    let closed = false;
    const put = (docs: ChunkDoc[], journaled: boolean) =>
      chunks.bulkWrite(
        docs.map((d) => ({ replaceOne: { filter: { files_id: oid, n: d.n }, replacement: d, upsert: true } })),
        journaled ? { ordered: true, ...JOURNALED } : { ordered: true },
      );
    return {
      get written() {
        return written;
      },
      async writev(bufs) {
        const full: ChunkDoc[] = [];
        for (const b of bufs) {
          pending.push(b);
          pendingBytes += b.length;
          written += b.length;
          while (pendingBytes >= size) {
            const all = Buffer.concat(pending, pendingBytes);
            full.push({ files_id: oid, n: n++, data: new Binary(all.subarray(0, size)) });
            const rest = all.subarray(size);
            pending = rest.length ? [rest] : [];
            pendingBytes = rest.length;
            if (full.length >= WRITE_BATCH_CHUNKS) await put(full.splice(0), false);
          }
        }
        if (full.length) await put(full, false);
      },
      async close() {
        if (closed) return;
        closed = true;
        // The tail chunk, journaled: the journal is synced up to it, so every chunk before is durable.
        const tail =
          pendingBytes > 0 ? [{ files_id: oid, n, data: new Binary(Buffer.concat(pending, pendingBytes)) }] : [];
        if (tail.length) await put(tail, true);
        else if (written > 0) await chunks.updateOne({ files_id: oid, n: n - 1 }, { $set: { n: n - 1 } }, JOURNALED);
      },
    };
  }

  async openRead(id: string, length: number): Promise<Readable> {
    const oid = toOid(id);
    const cursor = this.chunks.find(
      { files_id: oid },
      { sort: { n: 1 }, batchSize: WRITE_BATCH_CHUNKS, projection: { _id: 0, n: 1, data: 1 } },
    );
    let left = length;
    return new Readable({
      read() {
        if (left <= 0) return void this.push(null);
        cursor.next().then(
          (doc) => {
            if (!doc) return this.destroy(new Error(`partial object ${id} is shorter than its length`));
            let buf = bytesOf(doc.data as mongoose.mongo.Binary);
            if (buf.length > left) buf = buf.subarray(0, left);
            left -= buf.length;
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

  asTemp(id: string, length: number): TempObject {
    const oid = toOid(id);
    return {
      id,
      write: () => Promise.reject(new Error('a partial object is written through openWriter')),
      // The chunks are journaled already (each writer's close); the files document makes them an object.
      commit: async () => {
        const doc = { length, chunkSize: this.chunkSize, uploadDate: new Date(), filename: id };
        await this.files.replaceOne({ _id: oid }, doc, { upsert: true, ...JOURNALED });
      },
      settle: () => Promise.resolve(),
      abort: async () => {
        await this.files.deleteOne({ _id: oid });
        await this.chunks.deleteMany({ files_id: oid });
      },
    };
  }

  async remove(id: string): Promise<void> {
    await this.chunks.deleteMany({ files_id: toOid(id) });
  }
}
