/**
 * The SHA-256 of a resumable upload's bytes so far, kept on this instance between its requests, so the
 * last byte commits without reading the whole file back (a PUT hashes while it receives; so does an
 * upload whose requests all reach one instance). An upload continued elsewhere, or after a restart,
 * has none here: its bytes are read back and hashed once at the end (resumable.service.ts).
 */
import { LRUCache } from 'lru-cache';
import type { Sha256 } from './hasher';
import { SNIFF_WINDOW } from './mime';

export class RunningHash {
  private readonly head: Buffer[] = [];
  private headLength = 0;

  constructor(
    /** Bytes hashed so far. */
    public offset: number,
    private readonly hash: Sha256,
  ) {}

  /** Adds the next bytes; a promise when the hash wants the caller to wait (hasher.ts). */
  add(bufs: readonly Buffer[]): Promise<void> | undefined {
    for (const b of bufs) {
      this.offset += b.length;
      if (this.headLength < SNIFF_WINDOW) {
        const part = Buffer.from(b.subarray(0, SNIFF_WINDOW - this.headLength));
        this.head.push(part);
        this.headLength += part.length;
      }
    }
    return this.hash.update(bufs);
  }

  /** The sniff window (the first SNIFF_WINDOW bytes). */
  window(): Buffer {
    return Buffer.concat(this.head);
  }

  digest(): Promise<string> {
    return this.hash.digest();
  }

  abort(): void {
    this.hash.abort();
  }
}

/** What one entry holds: the sniff window and the hash state, counted generously. */
const ENTRY_BYTES = SNIFF_WINDOW + 1024;

/** Running hashes of the uploads in progress here, within a byte budget; the least recently used go first. */
export class RunningHashes {
  private readonly cache: LRUCache<string, RunningHash>;

  constructor(maxBytes = 1024 * 1024) {
    this.cache = new LRUCache<string, RunningHash>({
      maxSize: maxBytes,
      sizeCalculation: () => ENTRY_BYTES,
      // Taken out by take() (reason 'delete'), the caller owns it; pushed out, nobody does.
      dispose: (value, _key, reason) => {
        if (reason !== 'delete') value.abort();
      },
    });
  }

  /**
   * The running hash of upload `id` at `offset`, for one request to extend; a new one at offset 0;
   * undefined when this instance has none that far (the bytes are then read back at the end).
   */
  take(id: string, offset: number, start: () => Sha256): RunningHash | undefined {
    const found = this.cache.get(id);
    if (found) this.cache.delete(id);
    if (found?.offset === offset) return found;
    found?.abort();
    return offset === 0 ? new RunningHash(0, start()) : undefined;
  }

  /** Keeps a running hash for the upload's next request. */
  keep(id: string, running: RunningHash): void {
    this.cache.set(id, running);
  }
}
