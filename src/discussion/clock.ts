/** The domain's time source: the real clock unless frozen (tests, fixtures). */
import type { Clock } from './services';

export class SettableClock implements Clock {
  private frozen: Date | null = null;

  now(): Date {
    return this.frozen ? new Date(this.frozen.getTime()) : new Date();
  }

  set(at: Date | null): void {
    this.frozen = at ? new Date(at.getTime()) : null;
  }
}
