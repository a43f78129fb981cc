/**
 * Admission of uploads, decided before a byte of the body is read: a cap on the uploads this
 * process receives at once (FILES_MAX_CONCURRENT_UPLOADS, a property of the process, so counted
 * in memory), the share of those one client address may hold (FILES_MAX_UPLOADS_PER_ADDRESS, so a
 * few slow clients at one address cannot take every slot), and a per-address rate limit shared by
 * every instance (FILES_UPLOAD_RATE_LIMIT within FILES_UPLOAD_RATE_WINDOW, counted in MongoDB).
 * Every upload route of every front door goes through here. An admitted upload counts whatever its
 * outcome (stored, refused as too large or empty, aborted); a refused one is not counted.
 */
import type { FilesConfig } from '../config';
import { TooManyRequestsError } from '../core/errors';
import type { RateLimiter } from '../rate-limit';
import { addressGroup } from './address-group';

/** A place among the uploads in progress; release() is idempotent and must run on every exit path. */
export interface UploadSlot {
  release(): void;
}

export class UploadGate {
  private active = 0;
  /** Slots held by address group (address-group.ts); a group leaves the map with its last slot. */
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: Pick<
      FilesConfig,
      'uploadRateLimit' | 'uploadRateWindowSeconds' | 'maxConcurrentUploads' | 'maxUploadsPerAddress'
    >,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Uploads admitted and not yet released in this process. */
  get inProgress(): number {
    return this.active;
  }

  /**
   * Admits one upload from `clientAddress`, or throws TooManyRequestsError: `UPLOADS_BUSY`
   * (Retry-After 1) when the process already receives the maximum of uploads, `ADDRESS_UPLOADS_BUSY`
   * (Retry-After 1) when the address holds its share of them already, `UPLOAD_RATE_LIMITED`
   * (Retry-After until the address's oldest counted upload leaves the window) when the address used
   * up its uploads (not asked with `counted: false`). The caller must release the slot once the
   * upload ended, however it ended.
   */
  async admit(clientAddress: string, options: { counted?: boolean } = {}): Promise<UploadSlot> {
    const cap = this.config.maxConcurrentUploads;
    const share = this.config.maxUploadsPerAddress;
    const group = addressGroup(clientAddress);
    const held = this.byAddress.get(group) ?? 0;
    if (cap > 0 && this.active >= cap)
      throw new TooManyRequestsError('Too many uploads in progress, try again shortly', 1, 'UPLOADS_BUSY');
    if (share > 0 && held >= share)
      throw new TooManyRequestsError(
        'Too many uploads in progress from this address, try again shortly',
        1,
        'ADDRESS_UPLOADS_BUSY',
      );
    // Taken in the same synchronous step as the checks, before the database is asked, so
    // concurrent admissions cannot overshoot the cap or the share.
    this.active++;
    this.byAddress.set(group, held + 1);
    let released = false;
    const slot: UploadSlot = {
      release: () => {
        if (released) return;
        released = true;
        this.active--;
        const left = (this.byAddress.get(group) ?? 1) - 1;
        if (left > 0) this.byAddress.set(group, left);
        else this.byAddress.delete(group);
      },
    };
    // A resumable upload is counted once, at its creation, not once per request that continues it.
    if (options.counted === false) return slot;
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
