/**
 * The domain's time sources. The running server reads the real clock and nothing can move it:
 * fixtures that write history at chosen times (the demo seed, tests, the bench seed) build their
 * own SettableClock and hand it to their own service set (`withClock`) or to the test server, so
 * they can never shift the times of requests served meanwhile.
 */
import type { Clock } from './services';

export const systemClock: Clock = Object.freeze({ now: () => new Date() });

export class SettableClock implements Clock {
  private frozen: Date | null = null;

  now(): Date {
    return this.frozen ? new Date(this.frozen.getTime()) : new Date();
  }

  /** Freezes time at `at`, or follows the real clock again with null. */
  set(at: Date | null): void {
    this.frozen = at ? new Date(at.getTime()) : null;
  }
}
