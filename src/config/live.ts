import { EnvReader } from './reader';

/** GraphQL subscriptions over WebSocket (src/live) and the events log they read (src/events). */
export interface LiveConfig {
  /** Most subscriptions one WebSocket connection may hold at once. */
  maxSubscriptionsPerConnection: number;
  /** Most WebSocket connections open at once from one client address. */
  maxConnectionsPerAddress: number;
  /** Interval of the WebSocket ping; a client that has not answered by the next one is dropped. */
  keepAliveMs: number;
  /** Messages waiting to be written to one socket; a consumer that falls further behind is dropped. */
  queueLimit: number;
  /** How often each instance reads the events log (the same on every database: src/events/feed.ts). */
  pollIntervalMs: number;
  /** How long events are kept, and so how far back a client can resume from a cursor. */
  eventRetentionMs: number;
}

export function readLiveConfig(r: EnvReader): LiveConfig {
  return {
    maxSubscriptionsPerConnection: r.int('LIVE_MAX_SUBSCRIPTIONS', 20, 1, 10_000),
    maxConnectionsPerAddress: r.int('LIVE_MAX_CONNECTIONS_PER_ADDRESS', 20, 1, 1_000_000),
    keepAliveMs: r.int('LIVE_KEEPALIVE', 12, 1, 3600) * 1000,
    queueLimit: r.int('LIVE_QUEUE_LIMIT', 500, 1, 1_000_000),
    pollIntervalMs: r.int('LIVE_POLL_INTERVAL_MS', 100, 10, 60_000),
    eventRetentionMs: r.int('LIVE_EVENT_RETENTION', 3600, 60, 86_400 * 30) * 1000,
  };
}
