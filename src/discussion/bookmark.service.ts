/** Bookmarks on topics and comments. */
import type { Actor } from '../core/actor';
import type { DiscussionDeps } from './deps';
import { loadComment, loadTopic } from './post-access';
import type { BookmarkApi, PostKind, PostRef } from './services';
import { PostKindInput } from './inputs/post-kind.input';
import { validateInput } from './inputs/validate';

export class BookmarkService implements BookmarkApi {
  constructor(private readonly d: DiscussionDeps) {}

  bookmark(actor: Actor, kind: PostKind, ref: PostRef) {
    return this.set(actor, kind, ref, true);
  }

  unbookmark(actor: Actor, kind: PostKind, ref: PostRef) {
    return this.set(actor, kind, ref, false);
  }

  private async set(actor: Actor, kind: PostKind, ref: PostRef, on: boolean): Promise<{ bookmarked: boolean }> {
    const viewer = await this.d.viewers.require(actor);
    validateInput(PostKindInput, { kind });
    const now = this.d.clock.now();
    if (kind === 'topic') {
      const topic = await loadTopic(this.d, viewer, ref);
      await this.d.marks.setFlag(viewer.userId, 'topic', topic._id, topic._id, 'bookmarked', on, now);
    } else {
      const comment = await loadComment(this.d, viewer, ref);
      await this.d.marks.setFlag(viewer.userId, 'comment', comment._id, comment.topicId, 'bookmarked', on, now);
    }
    return { bookmarked: on };
  }
}
