/** Votes on topics and comments: one per user per post, never on one's own post. */
import type { Actor } from '../core/actor';
import { ForbiddenError } from '../core/errors';
import { PostKindInput } from './inputs/post-kind.input';
import { validateInput } from './inputs/validate';
import type { CommentService } from './comment.service';
import type { DiscussionDeps } from './deps';
import { recordCommentChange, recordTopicVoted } from './live-events';
import type { CommentDoc, MarkDoc, TopicDoc } from './models';
import { loadComment, loadTopic, refreshInteresting, visibleComment, visibleTopic } from './post-access';
import type { PostKind, PostRef, VoteApi } from './services';
import { topicView } from './view-builders';
import type { Viewer } from './viewer';
import type { CommentView, TopicView } from './views';
import { countWrite } from './write-limits';

/** What a vote left: the post as the change returned it (as read when nothing changed) and the voter's mark. */
interface Outcome<Doc> {
  viewer: Viewer;
  post: Doc;
  changed: boolean;
  /** The mark as the change left it; null when nothing changed. */
  mark: MarkDoc | null;
}

export class VoteService implements VoteApi {
  constructor(
    private readonly d: DiscussionDeps,
    private readonly comments: CommentService,
  ) {}

  vote(actor: Actor, kind: PostKind, ref: PostRef) {
    return this.set(actor, kind, ref, true);
  }

  unvote(actor: Actor, kind: PostKind, ref: PostRef) {
    return this.set(actor, kind, ref, false);
  }

  private async set(
    actor: Actor,
    kind: PostKind,
    ref: PostRef,
    on: boolean,
  ): Promise<{ voted: boolean; voteCount: number }> {
    await this.d.viewers.require(actor);
    validateInput(PostKindInput, { kind });
    const { post } = kind === 'topic' ? await this.onTopic(actor, ref, on) : await this.onComment(actor, ref, on);
    return { voted: on, voteCount: post.voteCount };
  }

  /**
   * When the vote changes: the topic, the mark's findAndModify (which returns the mark), then the
   * topic's `$inc` (which returns the topic), then the live event, which takes its number as it is
   * written and which the answer waits for (src/events/event-writer.ts). The answer is built from
   * what the writes returned.
   */
  async voteTopic(actor: Actor, ref: PostRef, on: boolean): Promise<TopicView> {
    const { viewer, post, changed, mark } = await this.onTopic(actor, ref, on);
    // Deleted or removed meanwhile: answered as a read of it would be.
    if (changed) return topicView(visibleTopic(viewer, post), viewer, mark ?? undefined);
    // Nothing changed (idempotent): the topic as read, with the viewer's mark as it is.
    return topicView(post, viewer, (await this.d.marks.find(viewer.userId, 'topic', post._id)) ?? undefined);
  }

  /** As voteTopic; the comment's feed shape needs the voter's marks on it and its topic (one read). */
  async voteComment(actor: Actor, ref: PostRef, on: boolean): Promise<CommentView> {
    const { viewer, post } = await this.onComment(actor, ref, on);
    return this.comments.view(visibleComment(viewer, post), viewer);
  }

  private async onTopic(actor: Actor, ref: PostRef, on: boolean): Promise<Outcome<TopicDoc>> {
    const viewer = await this.d.viewers.require(actor);
    await countWrite(this.d, viewer, 'vote');
    const topic = await loadTopic(this.d, viewer, ref);
    if (topic.authorId === viewer.userId) throw new ForbiddenError("You can't vote on your own topic", 'OWN_POST');
    const now = this.d.clock.now();
    const { changed, mark } = await this.d.marks.setFlag(
      viewer.userId,
      'topic',
      topic._id,
      topic._id,
      'voted',
      on,
      now,
    );
    if (!changed) return { viewer, post: topic, changed, mark };
    // The mark changed exactly once (a conditional update), so the count moves exactly once. The
    // event is written after the count, and takes its number then (event-writer.ts).
    const counted = this.d.topics.adjustVotes(topic._id, on ? 1 : -1);
    const [updated] = await Promise.all([counted, recordTopicVoted(this.d, topic, counted)]);
    return { viewer, post: updated ?? topic, changed, mark };
  }

  private async onComment(actor: Actor, ref: PostRef, on: boolean): Promise<Outcome<CommentDoc>> {
    const viewer = await this.d.viewers.require(actor);
    await countWrite(this.d, viewer, 'vote');
    const comment = await loadComment(this.d, viewer, ref);
    if (comment.authorId === viewer.userId) throw new ForbiddenError("You can't vote on your own comment", 'OWN_POST');
    const now = this.d.clock.now();
    const { changed, mark } = await this.d.marks.setFlag(
      viewer.userId,
      'comment',
      comment._id,
      comment.topicId,
      'voted',
      on,
      now,
    );
    if (!changed) return { viewer, post: comment, changed, mark };
    const counted = (async () => {
      const updated = (await this.d.comments.adjustVotes(comment._id, on ? 1 : -1)) ?? comment;
      // Votes decide whether a noise label is active, and so whether the comment is interesting.
      return refreshInteresting(this.d, updated);
    })();
    const [current] = await Promise.all([counted, recordCommentChange(this.d, 'comment.voted', comment, counted)]);
    return { viewer, post: current, changed, mark };
  }
}
