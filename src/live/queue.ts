/**
 * One subscription's messages on their way to its socket: an async iterator that graphql-ws
 * pulls from (it pulls the next message only once the previous one was written to the socket).
 * Messages held while a resumed subscription replays are released after the replay, in order.
 */
import type { LiveMessage } from './messages';

export class MessageQueue implements AsyncIterableIterator<LiveMessage> {
  private readonly items: LiveMessage[] = [];
  private held: LiveMessage[] | null = null;
  private waiting: ((r: IteratorResult<LiveMessage>) => void) | null = null;
  private done = false;

  constructor(
    /** Called with +1/-1 as messages enter and leave the queue (the connection bounds the sum). */
    private readonly onSize: (delta: number) => void,
    private readonly onEnd: () => void,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  /** Holds live messages until release() (a replay goes first). */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const m of held) this.push(m);
  }

  push(message: LiveMessage): void {
    if (this.done) return;
    if (this.held) {
      this.held.push(message);
      return;
    }
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: message, done: false });
      return;
    }
    this.items.push(message);
    this.onSize(1);
  }

  /** Pushes a replayed message ahead of the held live ones. */
  pushReplayed(message: LiveMessage): void {
    const held = this.held;
    this.held = null;
    this.push(message);
    this.held = held;
  }

  next(): Promise<IteratorResult<LiveMessage>> {
    const item = this.items.shift();
    if (item) {
      this.onSize(-1);
      return Promise.resolve({ value: item, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** Pending messages (for a graceful shutdown's drain). */
  get size(): number {
    return this.items.length;
  }

  return(): Promise<IteratorResult<LiveMessage>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    if (this.items.length > 0) this.onSize(-this.items.length);
    this.items.length = 0;
    this.held = null;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
    this.onEnd();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
