/**
 * Comment labels (docs/discussion-api.md §6.3): each user puts each label at most once on a comment that is
 * not their own, with weight 1.0; `exemplary` needs a reason. The comment keeps the weight sums.
 */
import type { Actor } from '../core/actor';
import { ConflictError, ForbiddenError, NotFoundError } from '../core/errors';
import type { CommentService } from './comment.service';
import type { DiscussionDeps } from './deps';
import { loadComment, refreshInteresting } from './post-access';
import type { LabelApi, PostRef } from './services';
import type { CommentLabel, CommentView } from './views';
import { LabelInput, UnlabelInput } from './inputs/label.input';
import { validateInput } from './inputs/validate';
import { countWrite } from './write-limits';

const WEIGHT = 1.0;

export class LabelService implements LabelApi {
  constructor(
    private readonly d: DiscussionDeps,
    private readonly comments: CommentService,
  ) {}

  async label(actor: Actor, ref: PostRef, label: CommentLabel, reason?: string | null): Promise<CommentView> {
    const viewer = await this.d.viewers.require(actor);
    validateInput(LabelInput, { label, reason });
    await countWrite(this.d, viewer, 'label');
    const why = typeof reason === 'string' ? reason.trim() : '';
    const comment = await loadComment(this.d, viewer, ref);
    if (comment.authorId === viewer.userId) throw new ForbiddenError("You can't label your own comment", 'OWN_POST');
    const inserted = await this.d.labels.insert({
      commentId: comment._id,
      topicId: comment.topicId,
      userId: viewer.userId,
      label,
      weight: WEIGHT,
      reason: why === '' ? null : why,
      createdAt: this.d.clock.now(),
    });
    if (!inserted) throw new ConflictError('You already put that label on this comment', 'ALREADY_LABELLED');
    // The label was inserted exactly once (a unique index), so the weight moves exactly once.
    const updated = await this.d.comments.adjustLabelWeight(comment._id, label, WEIGHT);
    if (!updated) throw new NotFoundError('Comment not found', 'COMMENT_NOT_FOUND');
    return this.comments.view(await refreshInteresting(this.d, updated), viewer);
  }

  async unlabel(actor: Actor, ref: PostRef, label: CommentLabel): Promise<CommentView> {
    const viewer = await this.d.viewers.require(actor);
    validateInput(UnlabelInput, { label });
    await countWrite(this.d, viewer, 'label');
    const comment = await loadComment(this.d, viewer, ref);
    const weight = await this.d.labels.remove(comment._id, viewer.userId, label);
    if (weight === null) return this.comments.view(comment, viewer);
    const updated = await this.d.comments.adjustLabelWeight(comment._id, label, -weight);
    if (!updated) throw new NotFoundError('Comment not found', 'COMMENT_NOT_FOUND');
    return this.comments.view(await refreshInteresting(this.d, updated), viewer);
  }
}
