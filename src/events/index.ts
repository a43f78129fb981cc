/**
 * The live events module: the log the domain services write to (EventRecorder) and the feed
 * every instance reads it through. Old events are pruned on every instance (idempotent).
 */
import type { DomainModule, ModuleContext } from '../module';
import { EventLog } from './event-log';
import { EventFeed } from './feed';
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
  const log = new EventLog(ctx.db);
  const feed = new EventFeed(log, { pollIntervalMs: ctx.config.live.pollIntervalMs, log: ctx.log });
  const recorder: EventRecorder = {
    async record(event: EventInput) {
      try {
        await log.append(event, new Date());
        feed.wake();
      } catch (err) {
        // The change itself is done and answered; live subscribers miss this one event (and a
        // client resuming from a cursor would too). Logged, never turned into a failed request.
        ctx.log.error({ err, event }, 'could not record a live event');
      }
    },
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
      await feed.stop();
    },
  };
}
