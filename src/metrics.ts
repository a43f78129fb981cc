/**
 * Prometheus metrics of one app instance. Each instance owns its registry, so several apps in one
 * process (tests) never share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** Counted by the command meter (src/db/command-meter.ts): one per round trip to the server. */
  readonly mongoCommands = new Counter({
    name: 'mongodb_commands_total',
    help: 'Commands sent to MongoDB, by command name (one per round trip).',
    labelNames: ['command'] as const,
    registers: [this.registry],
  });

  /**
   * Time spent waiting for MongoDB, from the same meter (sent → reply or failure), so a
   * request's latency can be split into database time and the server's own work.
   */
  readonly mongoCommandSeconds = new Counter({
    name: 'mongodb_command_seconds_total',
    help: 'Seconds from sending a MongoDB command to its reply, summed, by command name.',
    labelNames: ['command'] as const,
    registers: [this.registry],
  });

  /**
   * Writes refused for want of space: `files` (the disk byte store: ENOSPC/EDQUOT) and `database`
   * (a command the database failed for space, e.g. SQLite's "database or disk is full").
   */
  readonly storageFailures = new Counter({
    name: 'storage_failures_total',
    help: 'Writes refused for lack of space, by store (files, database).',
    labelNames: ['store'] as const,
    registers: [this.registry],
  });

  /** Live updates (src/live): WebSocket connections open now. */
  readonly liveSockets = new Gauge({
    name: 'live_sockets_open',
    help: 'GraphQL WebSocket connections open.',
    registers: [this.registry],
  });

  readonly liveSubscriptions = new Gauge({
    name: 'live_subscriptions_active',
    help: 'GraphQL subscriptions active.',
    registers: [this.registry],
  });

  readonly liveMessages = new Counter({
    name: 'live_events_delivered_total',
    help: 'Subscription messages queued for a subscriber (one per event per subscription that may see it).',
    registers: [this.registry],
  });

  readonly liveDropped = new Counter({
    name: 'live_connections_dropped_total',
    help: 'WebSocket connections the server closed, by reason (slow, revoked, idle, limit).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /**
   * Holes the live events feed jumped over (src/events/feed.ts): only pruning makes one, under a
   * reader more than the retention behind, so it stays 0 while every subscriber gets every event.
   */
  readonly liveGapsSkipped = new Counter({
    name: 'live_events_gaps_skipped_total',
    help: 'Holes in the events log the live feed skipped (events pruned before this instance read them).',
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Total MongoDB commands so far (all names); tests diff it around one request. */
  async mongoCommandTotal(): Promise<number> {
    const m = await this.mongoCommands.get();
    return m.values.reduce((sum, v) => sum + v.value, 0);
  }
}
