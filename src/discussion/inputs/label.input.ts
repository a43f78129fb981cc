/** A label on a comment (docs/discussion-api.md §6.3): `exemplary` needs a reason. */
import { COMMENT_LABELS, CommentLabel } from '../views';
import { OneOf, Rule } from './rules';

export const MAX_LABEL_REASON = 1000;

export class LabelInput {
  @OneOf(COMMENT_LABELS, () => `Must be one of ${COMMENT_LABELS.join(', ')}`, { required: true }) label!: CommentLabel;
  @Rule('reason', (v, o) => {
    const why = typeof v === 'string' ? v.trim() : '';
    if (o.label === 'exemplary' && why === '') return 'The exemplary label needs a reason';
    return why.length > MAX_LABEL_REASON ? `Reason must be at most ${MAX_LABEL_REASON} characters long` : null;
  })
  reason?: string | null;
}

export class UnlabelInput {
  @OneOf(COMMENT_LABELS, () => `Must be one of ${COMMENT_LABELS.join(', ')}`, { required: true }) label!: CommentLabel;
}
