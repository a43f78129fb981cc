/** One WebSocket client: who it is, what it subscribed, and how far behind it is. */
import type { WebSocket } from 'ws';
import type { Actor } from '../core/actor';
import type { Interest } from './messages';
import type { MessageQueue } from './queue';

/** Close codes this server sends besides graphql-ws' own (4400, 4401, 4403, 4406, 4408, 4409, 4429, 4500). */
export const CLOSE = {
  /** Invalid, expired or revoked token (the protocol's Forbidden). */
  FORBIDDEN: 4403,
  /** The client fell too far behind: more than LIVE_QUEUE_LIMIT messages waiting. */
  TOO_SLOW: 1008,
  /** The server is shutting down (sent after the messages already under way). */
  GOING_AWAY: 1001,
} as const;

export interface LiveSubscription {
  interest: Interest;
  queue: MessageQueue;
  /** Events up to this sequence number reach the subscription by its replay, not live. */
  floor: number;
}

export class LiveConnection {
  actor: Actor;
  /** The bearer token, re-verified when its user's tokens are revoked. */
  token: string | null;
  readonly subscriptions = new Set<LiveSubscription>();
  /** Messages waiting in this connection's queues. */
  pending = 0;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: WebSocket,
    readonly address: string,
    actor: Actor,
    token: string | null,
  ) {
    this.actor = actor;
    this.token = token;
  }

  get userId(): number | null {
    return this.actor.kind === 'user' ? this.actor.userId : null;
  }

  /** Closes the socket when the token expires (`exp`, seconds since the epoch). */
  expireAt(exp: number | undefined): void {
    clearTimeout(this.expiry);
    if (exp === undefined) return;
    // setTimeout holds at most ~24.8 days; a longer-lived token is checked again then.
    const ms = Math.min(exp * 1000 - Date.now(), 2 ** 31 - 1);
    this.expiry = setTimeout(
      () => {
        if (Date.now() >= exp * 1000) this.close(CLOSE.FORBIDDEN, 'Token expired');
        else this.expireAt(exp);
      },
      Math.max(ms, 0),
    );
    this.expiry.unref();
  }

  close(code: number, reason: string): void {
    clearTimeout(this.expiry);
    for (const s of this.subscriptions) s.queue.end();
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING)
      this.socket.close(code, reason);
  }

  dispose(): void {
    clearTimeout(this.expiry);
    for (const s of this.subscriptions) s.queue.end();
  }
}
