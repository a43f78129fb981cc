/**
 * Ignored topics: kept on the user's own document (which token verification reads on every
 * request), so the listing can exclude them inside its one query.
 */
import type { Actor } from '../core/actor';
import type { DiscussionDeps } from './deps';
import { loadTopic } from './post-access';
import type { IgnoreApi, PostRef } from './services';

export class IgnoreService implements IgnoreApi {
  constructor(private readonly d: DiscussionDeps) {}

  ignore(actor: Actor, ref: PostRef) {
    return this.set(actor, ref, true);
  }

  unignore(actor: Actor, ref: PostRef) {
    return this.set(actor, ref, false);
  }

  private async set(actor: Actor, ref: PostRef, on: boolean): Promise<{ ignored: boolean }> {
    const viewer = await this.d.viewers.require(actor);
    const topic = await loadTopic(this.d, viewer, ref);
    await this.d.users.setIgnored(viewer.userId, topic._id, on);
    this.d.viewers.forget(actor);
    return { ignored: on };
  }
}
