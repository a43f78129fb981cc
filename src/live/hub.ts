/**
 * The subscriptions of one instance and the delivery of the events feed to them.
 *
 * For each batch of events the hub finds the subscriptions each event concerns, then asks the
 * discussion's own read services (findByIds, as every query does) what each distinct viewer may
 * see of the topics and comments involved: one pair of reads per viewer per batch, shared by all
 * of that viewer's subscriptions. Hidden topics (deleted, removed, ignored by the viewer) send
 * nothing; hidden comments send nothing, except that a deletion or removal is announced by id.
 * `voted`, `bookmarked`, `isNew`… come from those reads, so they are the subscriber's own.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Actor } from '../core/actor';
import { ANONYMOUS } from '../core/actor';
import { UnauthenticatedError, ValidationError } from '../core/errors';
import type { LiveConfig } from '../config';
import type { CommentView, TopicView } from '../discussion/views';
import type { EventFeed, EventLog, LiveEvent } from '../events';
import { READ_WINDOW } from '../events/feed';
import type { Metrics } from '../metrics';
import type { Services } from '../services';
import { CLOSE, LiveConnection, LiveSubscription } from './connection';
import type { Interest, LiveMessage } from './messages';
import { MessageQueue } from './queue';

interface Sub extends LiveSubscription {
  conn: LiveConnection;
}

interface Delivery {
  sub: Sub;
  event: LiveEvent;
}

/** Viewers whose reads run at once while one batch is delivered. */
const VIEWER_CONCURRENCY = 16;

export interface HubDeps {
  services: Services;
  feed: EventFeed;
  log: EventLog;
  metrics: Metrics;
  config: LiveConfig;
  logger: FastifyBaseLogger;
}

export class LiveHub {
  readonly connections = new Set<LiveConnection>();
  private readonly byTopic = new Map<number, Set<Sub>>();
  private readonly byReplyUser = new Map<number, Set<Sub>>();
  private readonly newTopics = new Set<Sub>();
  private unlisten: (() => void) | undefined;

  constructor(private readonly d: HubDeps) {}

  start(): void {
    this.unlisten ??= this.d.feed.listen((batch) => this.onBatch(batch));
  }

  /** Stops taking events from the feed (shutdown: what is queued is still sent). */
  stop(): void {
    this.unlisten?.();
    this.unlisten = undefined;
  }

  /** Registers a connection; the feed reads the log only while this instance has any. */
  async add(conn: LiveConnection): Promise<void> {
    this.connections.add(conn);
    this.d.metrics.liveSockets.inc();
    await this.d.feed.want();
  }

  remove(conn: LiveConnection): void {
    if (!this.connections.delete(conn)) return;
    conn.dispose();
    this.d.metrics.liveSockets.dec();
    if (this.connections.size === 0) this.d.feed.rest();
  }

  /** Messages waiting in every queue or being executed and written (a graceful shutdown waits for them). */
  get pending(): number {
    let n = 0;
    for (const c of this.connections) {
      n += c.pending;
      for (const s of c.subscriptions) n += s.queue.inFlight;
    }
    return n;
  }

  /**
   * Registers a subscription and returns its messages. With `after` (a cursor from an earlier
   * message), the events recorded since then are sent first, then the live ones, without a gap or
   * a repeat.
   */
  async subscribe(conn: LiveConnection, interest: Interest, after?: string | null): Promise<MessageQueue> {
    // Start after what is already recorded, not where the last poll happened to stop.
    await this.d.feed.sync().catch(() => {});
    const floor = this.d.feed.position;
    const from = after === undefined || after === null ? undefined : await this.checkCursor(after, floor);
    const sub = {} as Sub;
    const queue = new MessageQueue(
      (delta) => this.onQueueSize(conn, delta),
      () => this.unregister(sub),
    );
    Object.assign(sub, { interest, queue, floor, conn });
    this.register(sub);
    if (from !== undefined && from < floor) {
      queue.hold();
      void this.replay(sub, from, floor).finally(() => queue.release());
    }
    return queue;
  }

  private async checkCursor(after: string, position: number): Promise<number> {
    const bad = (message: string, reason: string) => new ValidationError([{ field: 'after', message }], reason);
    if (!/^[0-9]{1,15}$/.test(after)) throw bad('Not a cursor of this server', 'INVALID_CURSOR');
    const seq = Number(after);
    if (seq > Math.max(position, await this.d.log.head())) throw bad('Not a cursor of this server', 'INVALID_CURSOR');
    if (seq > 0 && seq < position && !(await this.d.log.has(seq))) {
      throw bad(
        'That cursor is older than the events kept (LIVE_EVENT_RETENTION): ' +
          'read the current state with a query, then subscribe without a cursor',
        'CURSOR_EXPIRED',
      );
    }
    return seq;
  }

  private register(sub: Sub): void {
    const i = sub.interest;
    if (i.kind === 'topic') setOf(this.byTopic, i.topicId).add(sub);
    else if (i.kind === 'replies') setOf(this.byReplyUser, i.userId).add(sub);
    else this.newTopics.add(sub);
    sub.conn.subscriptions.add(sub);
    this.d.metrics.liveSubscriptions.inc();
  }

  private unregister(sub: Sub): void {
    if (!sub.conn.subscriptions.delete(sub)) return;
    const i = sub.interest;
    if (i.kind === 'topic') dropFrom(this.byTopic, i.topicId, sub);
    else if (i.kind === 'replies') dropFrom(this.byReplyUser, i.userId, sub);
    else this.newTopics.delete(sub);
    this.d.metrics.liveSubscriptions.dec();
  }

  private onQueueSize(conn: LiveConnection, delta: number): void {
    conn.pending += delta;
    if (delta > 0 && conn.pending > this.d.config.queueLimit) {
      this.d.metrics.liveDropped.inc({ reason: 'slow' });
      conn.close(CLOSE.TOO_SLOW, `Too slow: more than ${this.d.config.queueLimit} messages waiting`);
    }
  }

  private async onBatch(batch: readonly LiveEvent[]): Promise<void> {
    const deliveries: Delivery[] = [];
    for (const event of batch) {
      if (event.kind === 'account.revoked') {
        if (event.userId !== undefined) await this.recheckUser(event.userId);
        continue;
      }
      for (const sub of this.matching(event)) if (event.seq > sub.floor) deliveries.push({ sub, event });
    }
    if (deliveries.length > 0) await this.deliver(deliveries, false);
  }

  private *matching(event: LiveEvent): Iterable<Sub> {
    if (event.kind === 'topic.posted') {
      for (const sub of this.newTopics) if (inGroup(event.groupPath, sub.interest)) yield sub;
      return;
    }
    if (event.topicId !== undefined) yield* this.byTopic.get(event.topicId) ?? [];
    if (event.kind === 'comment.posted' && event.replyToUserId != null)
      yield* this.byReplyUser.get(event.replyToUserId) ?? [];
  }

  /** Sends a resumed subscription what it missed: events after `from` up to `to`, read from the log. */
  private async replay(sub: Sub, from: number, to: number): Promise<void> {
    try {
      for (let next = from + 1; next <= to && !sub.queue.ended; next += READ_WINDOW) {
        const events = (await this.d.log.readRange(next, Math.min(READ_WINDOW, to - next + 1))).filter(
          (e) => e.kind !== 'account.revoked',
        );
        const mine = events.filter((e) => [...this.matchingOne(e, sub)].length > 0).map((event) => ({ sub, event }));
        if (mine.length > 0) await this.deliver(mine, true);
      }
    } catch (err) {
      this.d.logger.warn({ err }, 'live subscription replay failed');
    }
  }

  private *matchingOne(event: LiveEvent, sub: Sub): Iterable<Sub> {
    const i = sub.interest;
    if (event.kind === 'topic.posted') {
      if (i.kind === 'newTopics' && inGroup(event.groupPath, i)) yield sub;
    } else if (i.kind === 'topic' && event.topicId === i.topicId) yield sub;
    else if (i.kind === 'replies' && event.kind === 'comment.posted' && event.replyToUserId === i.userId) yield sub;
  }

  /** Reads what each viewer may see and queues the messages, each subscription's in sequence order. */
  private async deliver(deliveries: Delivery[], replayed: boolean): Promise<void> {
    const byViewer = new Map<string, Delivery[]>();
    for (const dl of deliveries) {
      const a = dl.sub.conn.actor;
      const key = a.kind === 'user' ? `u${a.userId}:${a.isAdmin ? 1 : 0}` : 'anonymous';
      let list = byViewer.get(key);
      if (!list) byViewer.set(key, (list = []));
      list.push(dl);
    }
    const groups = [...byViewer.values()];
    for (let i = 0; i < groups.length; i += VIEWER_CONCURRENCY) {
      await Promise.all(groups.slice(i, i + VIEWER_CONCURRENCY).map((g) => this.deliverToViewer(g, replayed)));
    }
  }

  private async deliverToViewer(deliveries: Delivery[], replayed: boolean): Promise<void> {
    const first = deliveries[0]!.sub.conn.actor;
    // A fresh actor object: the viewer's record (ignored topics, ban) is read again for this batch.
    const actor: Actor = first.kind === 'user' ? { ...first } : ANONYMOUS;
    const topicIds = unique(deliveries.map((d) => d.event.topicId!));
    const commentIds = unique(deliveries.flatMap((d) => (d.event.commentId === undefined ? [] : [d.event.commentId])));
    const ds = this.d.services.discussion;
    let topics: Map<number, TopicView>;
    let comments: Map<number, CommentView>;
    try {
      const [t, c] = await Promise.all([
        ds.topics.findByIds(actor, topicIds),
        commentIds.length > 0
          ? ds.comments.findByIds(actor, commentIds)
          : Promise.resolve([] as (CommentView | null)[]),
      ]);
      topics = new Map(t.filter((v): v is TopicView => v !== null).map((v) => [v.id, v]));
      comments = new Map(c.filter((v): v is CommentView => v !== null).map((v) => [v.id, v]));
    } catch (err) {
      if (err instanceof UnauthenticatedError && first.kind === 'user') return this.recheckUser(first.userId);
      this.d.logger.error({ err }, 'live delivery could not read what a viewer may see');
      return;
    }
    // One message object per event for this viewer, shared by all of their subscriptions: the
    // socket server executes the selection once per (message, operation) (src/live/shared-execution.ts).
    const messages = new Map<number, LiveMessage | null>();
    for (const { sub, event } of deliveries) {
      let message = messages.get(event.seq);
      if (message === undefined) {
        message = toMessage(
          event,
          topics.get(event.topicId!),
          event.commentId === undefined ? undefined : comments.get(event.commentId),
        );
        messages.set(event.seq, message);
      }
      if (!message) continue;
      if (replayed) sub.queue.pushReplayed(message);
      else sub.queue.push(message);
      this.d.metrics.liveMessages.inc();
    }
  }

  /** Re-verifies the tokens of a user's connections: a revoked one is closed, a valid one refreshed. */
  private async recheckUser(userId: number): Promise<void> {
    const auth = this.d.services.discussion.auth;
    for (const conn of this.connections) {
      if (conn.userId !== userId) continue;
      try {
        conn.actor = await auth.actorForToken(conn.token ?? '');
      } catch (err) {
        if (!(err instanceof UnauthenticatedError)) {
          this.d.logger.warn({ err }, "could not re-verify a live connection's token");
          continue;
        }
        this.d.metrics.liveDropped.inc({ reason: 'revoked' });
        conn.close(CLOSE.FORBIDDEN, 'Token revoked');
      }
    }
  }
}

/** The message one event makes for a viewer, or null when the viewer may not see it. */
function toMessage(
  event: LiveEvent,
  topic: TopicView | undefined,
  comment: CommentView | undefined,
): LiveMessage | null {
  if (!topic || topic.ignored) return null;
  const announcesRemoval = event.kind === 'comment.deleted' || event.kind === 'comment.removed';
  if (event.commentId !== undefined && !comment && !announcesRemoval) return null;
  return {
    cursor: String(event.seq),
    kind: event.kind as LiveMessage['kind'],
    topicId: topic.id,
    commentId: event.commentId ?? null,
    parentId: event.kind === 'comment.posted' ? (event.parentId ?? null) : null,
    depth: event.kind === 'comment.posted' ? (event.depth ?? 0) : null,
    topic,
    // Read now, not at the change: a removal shows the comment only while it is still removed
    // (to its author and admins), a deletion never shows it.
    comment:
      event.kind === 'comment.deleted' || (event.kind === 'comment.removed' && !comment?.isRemoved)
        ? null
        : (comment ?? null),
  };
}

function inGroup(groupPath: string | undefined, interest: Interest): boolean {
  if (interest.kind !== 'newTopics') return false;
  const g = interest.groupPath;
  return g === null || groupPath === g || (groupPath ?? '').startsWith(`${g}.`);
}

function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let s = map.get(key);
  if (!s) map.set(key, (s = new Set()));
  return s;
}

function dropFrom<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const s = map.get(key);
  if (!s) return;
  s.delete(value);
  if (s.size === 0) map.delete(key);
}

function unique(ids: number[]): number[] {
  return [...new Set(ids)];
}
