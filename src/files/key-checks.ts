/**
 * The limit on wrong keys (issue 43): a client-chosen access or delete key is checked with scrypt
 * (tens of milliseconds of CPU by design, keys.ts), so a flood of wrong keys was unmetered KDF
 * work, and a weak key could be searched online. Each check of a presented key takes its place in
 * two shared counters first, the client address's and the file's (src/rate-limit: taken before the check, so concurrent
 * checks cannot pass the limit), and gives it back when the key was right: only wrong keys count.
 * Once either counter holds FILES_KEY_CHECK_LIMIT wrong keys within FILES_KEY_CHECK_WINDOW, checks
 * are refused without running the KDF: TooManyRequestsError (429, Retry-After until the oldest
 * counted wrong key leaves the window). A client with the right key never fails a check, so a
 * legacy client is never limited; the file's counter means that a flood of wrong keys for one file
 * from many addresses refuses its owner too until the window passes, as the login limit's
 * username counter does.
 */
import type { FilesConfig } from '../config';
import { TooManyRequestsError } from '../core/errors';
import type { RateLimiter } from '../rate-limit';

/**
 * How long a refused check waits before it is answered. A refusal costs the server next to nothing
 * (no KDF, no database round trip once the counter is known to be full), so a flooding client
 * answered at once sends hundreds a second and other clients' requests queue behind them on the
 * event loop (bench/kdf-flood.js: a 1 MiB download's p50 far above 2× its quiet value). Paused, each
 * of its connections sends two a second; the pause is a timer, not work. A client with the right
 * keys never meets it.
 */
const REFUSAL_PAUSE_MS = 500;

export class KeyChecks {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: Pick<FilesConfig, 'keyCheckLimit' | 'keyCheckWindowSeconds'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Runs `check` (whether a presented key is right) for `clientAddress` on `filename`, counted as a
   * wrong key unless it answers true; throws TooManyRequestsError, without running it, when the
   * address or the file already used up its wrong keys.
   */
  async run(clientAddress: string, filename: string, check: () => Promise<boolean>): Promise<boolean> {
    const rule = { limit: this.config.keyCheckLimit, windowSeconds: this.config.keyCheckWindowSeconds };
    const keys = [`addr:${clientAddress}`, `file:${filename}`];
    const decision = await this.limiter.reserve('keycheck', keys, rule, this.now());
    if (decision.retryAfter !== null) {
      await new Promise((resolve) => setTimeout(resolve, REFUSAL_PAUSE_MS));
      throw new TooManyRequestsError('Too many wrong keys, try again later', decision.retryAfter, 'KEY_CHECKS_LIMITED');
    }
    let right: boolean;
    try {
      right = await check();
    } catch (err) {
      // Not a wrong key (the KDF pool was busy, say): not counted.
      await decision.reservation.release();
      throw err;
    }
    if (right) await decision.reservation.release();
    return right;
  }
}
