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
  /**
   * A message was handed to graphql-ws and it has not asked for the next one yet: it is still
   * executing the subscription's selection for it or writing it to the socket.
   */
  private handedOut = false;

  constructor(
    /** Called with +1/-1 as messages enter and leave the queue (the connection bounds the sum). */
    private readonly onSize: (delta: number) => void,
    private readonly onEnd: () => void,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  /**
   * 1 while a message handed out is not yet written (see handedOut), else 0. A graceful shutdown
   * waits for these as for the queued ones: a message handed straight to a waiting consumer was never
   * queued, and closing the socket while its selection executed lost it.
   */
  get inFlight(): number {
    return this.handedOut && !this.done ? 1 : 0;
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
      this.handedOut = true;
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
    // Asked for the next one: the previous message was written (graphql-ws pulls only then).
    this.handedOut = false;
    const item = this.items.shift();
    if (item) {
      this.onSize(-1);
      this.handedOut = true;
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
