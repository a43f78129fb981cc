/**
 * Recently read file metadata, kept by the disk backend so a download needs no database round
 * trip. An entry is only used while its byte object still exists: objects are immutable and every
 * change of a file (overwrite, delete, expiry) removes its old object on disk, so an entry whose
 * object exists is the current version. Local changes also drop their entry at once.
 * Not used with GridFS, where several instances share the database and objects outlive their
 * metadata for a grace period.
 */
import type { FileRecord } from './file.repository';

export class MetadataCache {
  private readonly entries = new Map<string, FileRecord>();

  constructor(private readonly capacity = 10_000) {}

  get(filename: string): FileRecord | undefined {
    const entry = this.entries.get(filename);
    if (entry) {
      // Least recently used order: refresh the position.
      this.entries.delete(filename);
      this.entries.set(filename, entry);
    }
    return entry;
  }

  set(filename: string, record: FileRecord): void {
    this.entries.delete(filename);
    this.entries.set(filename, record);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(filename: string): void {
    this.entries.delete(filename);
  }
}
