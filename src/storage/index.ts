/** Picks the byte store named by FILES_STORAGE. */
import path from 'node:path';
import type { Config } from '../config';
import type { Database } from '../db/connection';
import { DiskStore } from './disk';
import { GridFsStore } from './gridfs';
import type { ByteStore } from './store';

export type { ByteStore, ByteRange, TempObject, ReferenceCheck } from './store';
export { ObjectGoneError, GRACE_PERIOD_MS } from './store';
export { DiskStore, ObjectReader } from './disk';
export type { ObjectCacheStats } from './object-cache';
export { GridFsStore } from './gridfs';

export async function openByteStore(config: Config, db: Database): Promise<ByteStore> {
  if (config.files.storage === 'gridfs') {
    const native = db.conn.db;
    if (!native) throw new Error('the database connection is not open');
    const store = new GridFsStore(native);
    await store.ensureIndexes();
    return store;
  }
  const { objectCacheBytes: cacheBytes, objectCacheMaxObject: cacheMaxObject, sendfile } = config.files;
  const onNoSpace = () => db.metrics?.storageFailures.inc({ store: 'files' });
  return DiskStore.open(path.join(config.dataDir, 'files'), { cacheBytes, cacheMaxObject, onNoSpace, sendfile });
}
