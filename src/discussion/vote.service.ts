/** Votes on topics and comments: one per user per post, never on one's own post. */
import type { Actor } from '../core/actor';
import { ForbiddenError } from '../core/errors';
import { PostKindInput } from './inputs/post-kind.input';
import { validateInput } from './inputs/validate';
import type { DiscussionDeps } from './deps';
import { recordCommentChange, recordTopicVoted } from './live-events';
import { loadComment, loadTopic, refreshInteresting } from './post-access';
import type { PostKind, PostRef, VoteApi } from './services';

export class VoteService implements VoteApi {
  constructor(private readonly d: DiscussionDeps) {}

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
    const viewer = await this.d.viewers.require(actor);
    validateInput(PostKindInput, { kind });
    const now = this.d.clock.now();
    if (kind === 'topic') {
      const topic = await loadTopic(this.d, viewer, ref);
      if (topic.authorId === viewer.userId) throw new ForbiddenError("You can't vote on your own topic", 'OWN_POST');
      const changed = await this.d.marks.setFlag(viewer.userId, 'topic', topic._id, topic._id, 'voted', on, now);
      if (!changed) return { voted: on, voteCount: topic.voteCount };
      // The mark changed exactly once (a conditional update), so the count moves exactly once.
      const updated = await this.d.topics.adjustVotes(topic._id, on ? 1 : -1);
      await recordTopicVoted(this.d, topic);
      return { voted: on, voteCount: (updated ?? topic).voteCount };
    }
    const comment = await loadComment(this.d, viewer, ref);
    if (comment.authorId === viewer.userId) throw new ForbiddenError("You can't vote on your own comment", 'OWN_POST');
    const changed = await this.d.marks.setFlag(
      viewer.userId,
      'comment',
      comment._id,
      comment.topicId,
      'voted',
      on,
      now,
    );
    if (!changed) return { voted: on, voteCount: comment.voteCount };
    const updated = (await this.d.comments.adjustVotes(comment._id, on ? 1 : -1)) ?? comment;
    // Votes decide whether a noise label is active, and so whether the comment is interesting.
    await refreshInteresting(this.d, updated);
    await recordCommentChange(this.d, 'comment.voted', comment);
    return { voted: on, voteCount: updated.voteCount };
  }
}
