/**
 * The bytes of small, recently read objects, kept by the disk store (FILES_OBJECT_CACHE_BYTES,
 * FILES_OBJECT_CACHE_MAX). Objects never change after commit and an id is never reused, so an
 * entry is valid for as long as its object exists; the store drops it when it releases the object.
 *
 * An object is admitted on its second read within a while, not its first: most downloads of a file
 * host are of files nobody fetched a moment ago, and caching each of those would spend a fresh
 * buffer and evict a file that is read again for one that is not (a scan of distinct files turns an
 * LRU over to files read once). The ids read once are remembered in a bounded list, without bytes.
 * A file read twice is served from memory from its third read on, without open/read/close.
 *
 * It never holds more than its capacity in bytes (lru-cache's maxSize, each entry's size its
 * buffer's length plus a fixed overhead for the buffer object and the id): an object larger than
 * the capacity or than `maxObject` is never admitted, and inserting evicts the least recently used
 * first.
 */
import { LRUCache } from 'lru-cache';
export interface ObjectCacheStats {
  hits: number;
  misses: number;
  /** Objects copied into the cache (second reads). */
  admitted: number;
  evicted: number;
  entries: number;
  bytes: number;
  capacity: number;
}

/** Ids read once and not admitted, remembered at most this many (a 32-character id each, ~1.5 MiB in all). */
const SEEN_MAX = 16_384;

/**
 * What an entry costs besides its bytes: the Buffer and ArrayBuffer objects, the id, the LRU's
 * slots (rounded up from what test/fixtures/cache-heap.js measures for 100-byte objects).
 */
export const ENTRY_OVERHEAD = 1024;

export class ObjectCache {
  private readonly entries: LRUCache<string, Buffer> | undefined;
  /** Ids read once recently, oldest first. */
  private readonly seen = new Set<string>();
  private readonly counts = { hits: 0, misses: 0, admitted: 0, evicted: 0 };

  constructor(
    readonly capacity: number,
    readonly maxObject: number,
  ) {
    this.entries =
      capacity > 0
        ? new LRUCache<string, Buffer>({
            maxSize: capacity,
            sizeCalculation: (buf) => buf.length + ENTRY_OVERHEAD,
            dispose: (_buf, _id, reason) => {
              if (reason === 'evict') this.counts.evicted++;
            },
          })
        : undefined;
  }

  /** Whether an object of `size` bytes can ever be cached. */
  accepts(size: number): boolean {
    return size <= this.maxObject && size + ENTRY_OVERHEAD <= this.capacity;
  }

  /** The cached bytes of `id` (refreshing its place), or undefined (counted as a miss). */
  get(id: string): Buffer | undefined {
    const buf = this.entries?.get(id);
    if (buf) this.counts.hits++;
    else this.counts.misses++;
    return buf;
  }

  /**
   * Called on a miss: true when `id` was read once recently, so the caller should read the whole
   * object and `set` it; false on a first read (remembered for next time).
   */
  shouldAdmit(id: string): boolean {
    if (this.seen.delete(id)) return true;
    this.seen.add(id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value as string);
    return false;
  }

  set(id: string, buf: Buffer): void {
    if (!this.entries || !this.accepts(buf.length)) return;
    this.entries.set(id, ownMemory(buf));
    this.counts.admitted++;
  }

  delete(id: string): void {
    this.seen.delete(id);
    this.entries?.delete(id);
  }

  stats(): ObjectCacheStats {
    return {
      ...this.counts,
      entries: this.entries?.size ?? 0,
      bytes: this.entries?.calculatedSize ?? 0,
      capacity: this.capacity,
    };
  }
}

/**
 * A small Buffer may be a slice of Node's shared allocation pool (Buffer.allocUnsafe): keeping it
 * would keep the whole pool slab alive, uncounted. Such a slice is copied into memory of its own.
 */
function ownMemory(buf: Buffer): Buffer {
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength) return buf;
  const own = Buffer.allocUnsafeSlow(buf.length);
  buf.copy(own);
  return own;
}
