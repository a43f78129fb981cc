/**
 * Admission of uploads, decided before a byte of the body is read: a cap on the uploads this
 * process receives at once (FILES_MAX_CONCURRENT_UPLOADS, a property of the process, so counted
 * in memory) and a per-address rate limit shared by every instance (FILES_UPLOAD_RATE_LIMIT within
 * FILES_UPLOAD_RATE_WINDOW, counted in MongoDB). Every upload route of every front door goes
 * through here. An admitted upload counts whatever its outcome (stored, refused as too large or
 * empty, aborted); a refused one is not counted.
 */
import type { FilesConfig } from '../config';
import { TooManyRequestsError } from '../core/errors';
import type { RateLimiter } from '../rate-limit';

/** A place among the uploads in progress; release() is idempotent and must run on every exit path. */
export interface UploadSlot {
  release(): void;
}

export class UploadGate {
  private active = 0;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: Pick<FilesConfig, 'uploadRateLimit' | 'uploadRateWindowSeconds' | 'maxConcurrentUploads'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Uploads admitted and not yet released in this process. */
  get inProgress(): number {
    return this.active;
  }

  /**
   * Admits one upload from `clientAddress`, or throws TooManyRequestsError: `UPLOADS_BUSY`
   * (Retry-After 1) when the process already receives the maximum of uploads, `UPLOAD_RATE_LIMITED`
   * (Retry-After until the address's oldest counted upload leaves the window) when the address used
   * up its uploads. The caller must release the slot once the upload ended, however it ended.
   */
  async admit(clientAddress: string): Promise<UploadSlot> {
    const cap = this.config.maxConcurrentUploads;
    if (cap > 0 && this.active >= cap)
      throw new TooManyRequestsError('Too many uploads in progress, try again shortly', 1, 'UPLOADS_BUSY');
    // Taken before the database is asked, so concurrent admissions cannot overshoot the cap.
    this.active++;
    let released = false;
    const slot: UploadSlot = {
      release: () => {
        if (released) return;
        released = true;
        this.active--;
      },
    };
    try {
      const rule = { limit: this.config.uploadRateLimit, windowSeconds: this.config.uploadRateWindowSeconds };
      const retryAfter = await this.limiter.attempt('upload', [`addr:${clientAddress}`], rule, this.now());
      if (retryAfter !== null)
        throw new TooManyRequestsError('Too many uploads, try again later', retryAfter, 'UPLOAD_RATE_LIMITED');
    } catch (err) {
      slot.release();
      throw err;
    }
    return slot;
  }
}
