/** Visits (docs/discussion-api.md §4.7): the latest (time, comment_count) per viewer and topic. */
import type { Actor } from '../core/actor';
import type { DiscussionDeps } from './deps';
import { loadTopic } from './post-access';
import type { PostRef, VisitApi } from './services';

export class VisitService implements VisitApi {
  constructor(private readonly d: DiscussionDeps) {}

  async record(actor: Actor, ref: PostRef): Promise<void> {
    const viewer = await this.d.viewers.require(actor);
    const topic = await loadTopic(this.d, viewer, ref);
    await this.d.marks.recordVisit(viewer.userId, topic._id, this.d.clock.now(), topic.commentCount);
  }
}
