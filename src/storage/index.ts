/** Picks the byte store named by FILES_STORAGE. */
import path from 'node:path';
import type { Config } from '../config';
import type { Database } from '../db/connection';
import { DiskStore } from './disk';
import type { DiskIo } from './disk-io';
import { GridFsStore } from './gridfs';
import { sendfileModule } from './sendfile';
import type { ByteStore } from './store';

export type { ByteStore, ByteRange, TempObject, ReferenceCheck, PartialObjects, PartialWriter } from './store';
export { ObjectGoneError, GRACE_PERIOD_MS } from './store';
export { DiskStore, ObjectReader } from './disk';
export { type DiskIo, nodeDiskIo } from './disk-io';
export type { ObjectCacheStats } from './object-cache';
export { GridFsStore } from './gridfs';

/** `diskIo`: a test's fault-injection double for the disk store's file-system calls (disk-io.ts). */
export async function openByteStore(config: Config, db: Database, diskIo?: DiskIo): Promise<ByteStore> {
  if (config.files.storage === 'gridfs') {
    const native = db.conn.db;
    if (!native) throw new Error('the database connection is not open');
    const store = new GridFsStore(native);
    await store.ensureIndexes();
    return store;
  }
  const { objectCacheBytes: cacheBytes, objectCacheMaxObject, sendfile } = config.files;
  const cacheMaxObject = objectCacheMaxObject ?? defaultCacheMaxObject(sendfile && sendfileModule() !== null);
  const onNoSpace = () => db.metrics?.storageFailures.inc({ store: 'files' });
  return DiskStore.open(path.join(config.dataDir, 'files'), {
    cacheBytes,
    cacheMaxObject,
    onNoSpace,
    sendfile,
    io: diskIo,
  });
}

/**
 * The largest object the object cache keeps when FILES_OBJECT_CACHE_MAX is not set. Through
 * sendfile(2) a download of a larger file costs the same CPU from the page cache as from memory,
 * while admitting it copies it into a fresh buffer (more CPU than the download itself) and a scan
 * through more such files than the cache holds admitted one on every second read. Small files still
 * gain from memory. Without sendfile a 1 MiB hit saves the read's copy and pool trip
 * (bench/files.js, hot and distinct downloads; bench/README.md, Decisions).
 */
export function defaultCacheMaxObject(viaSendfile: boolean): number {
  return viaSendfile ? 64 * 1024 : 1024 * 1024;
}
