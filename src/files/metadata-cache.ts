/**
 * Recently read file metadata, kept by the disk backend so a download needs no database round
 * trip. An entry is only used while its byte object still exists: objects are immutable and every
 * change of a file (overwrite, delete, expiry) removes its old object on disk, so an entry whose
 * object exists is the current version. Local changes also drop their entry at once.
 * Not used with GridFS, where several instances share the database and objects outlive their
 * metadata for a grace period.
 *
 * Bounded by bytes (FILES_METADATA_CACHE_BYTES), least recently used first out: a record's size
 * is estimated from its fields (core/approx-bytes.ts), so long names and keys cost what they hold.
 */
import { LRUCache } from 'lru-cache';
import { approximateBytes } from '../core/approx-bytes';
import type { FileRecord } from './file.repository';

export class MetadataCache {
  private readonly entries: LRUCache<string, FileRecord> | undefined;

  constructor(readonly maxBytes: number) {
    this.entries =
      maxBytes > 0
        ? new LRUCache<string, FileRecord>({
            maxSize: maxBytes,
            sizeCalculation: (record, filename) => approximateBytes(record) + approximateBytes(filename),
          })
        : undefined;
  }

  get(filename: string): FileRecord | undefined {
    return this.entries?.get(filename);
  }

  set(filename: string, record: FileRecord): void {
    this.entries?.set(filename, record);
  }

  delete(filename: string): void {
    this.entries?.delete(filename);
  }

  /** The estimated bytes held (at most maxBytes). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}
