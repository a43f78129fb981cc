/**
 * The live events module: the log the domain services write to (EventRecorder) and the feed
 * every instance reads it through. Old events are pruned on every instance (idempotent).
 */
import type { DomainModule, ModuleContext } from '../module';
import { EventLog } from './event-log';
import { EventFeed } from './feed';
import { EventWriter } from './event-writer';
import type { EventInput, EventRecorder } from './types';

export type { EventInput, EventKind, EventRecorder, LiveEvent } from './types';
export { EventFeed } from './feed';
export { EventLog } from './event-log';

export interface EventServices {
  recorder: EventRecorder;
  log: EventLog;
  feed: EventFeed;
}

const PRUNE_EVERY_MS = 60_000;

export function createEvents(ctx: ModuleContext): DomainModule<EventServices> {
  const log = new EventLog(ctx.db, { retentionMs: ctx.config.live.eventRetentionMs });
  // Events are written once their changes are done, those waiting together in one batch (event-writer.ts).
  const writer: EventWriter = new EventWriter(log, () => feed.wake(), ctx.log);
  const feed: EventFeed = new EventFeed(log, {
    pollIntervalMs: ctx.config.live.pollIntervalMs,
    log: ctx.log,
    beforeSync: () => writer.written(),
    onGapSkipped: () => ctx.metrics.liveGapsSkipped.inc(),
  });
  const recorder: EventRecorder = {
    record: (event: EventInput, after?: Promise<unknown>) => writer.record(event, after),
    flushed: () => writer.flushed(),
  };
  let pruner: NodeJS.Timeout | undefined;
  return {
    services: { recorder, log, feed },
    async start() {
      await feed.start();
      pruner = setInterval(() => {
        log
          .prune(new Date(Date.now() - ctx.config.live.eventRetentionMs))
          .catch((err) => ctx.log.warn({ err }, 'could not prune live events'));
      }, PRUNE_EVERY_MS);
      pruner.unref();
    },
    async stop() {
      clearInterval(pruner);
      // What this instance recorded is written before the database connection closes.
      await writer.flushed();
      await feed.stop();
    },
  };
}
