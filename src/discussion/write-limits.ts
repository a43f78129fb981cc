/**
 * Rate limits on what users write (issue 43): topics, comments, votes and labels, counted per
 * account in the shared counters (src/rate-limit), so both front doors and every instance count
 * alike. The defaults (README, configuration) are above any person's pace and below a script's.
 * Admins are not limited: their moderation (labelling, posting notices, undoing a spammer's
 * work) must not be stopped half-way, and only an admin or the command line makes an admin.
 */
import { TooManyRequestsError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import type { Viewer } from './viewer';

export type WriteKind = 'topic' | 'comment' | 'vote' | 'label';

const REFUSALS: Record<WriteKind, { message: string; reason: string }> = {
  topic: { message: 'Too many topics, try again later', reason: 'TOPIC_RATE_LIMITED' },
  comment: { message: 'Too many comments, try again later', reason: 'COMMENT_RATE_LIMITED' },
  vote: { message: 'Too many votes, try again later', reason: 'VOTE_RATE_LIMITED' },
  label: { message: 'Too many labels, try again later', reason: 'LABEL_RATE_LIMITED' },
};

/**
 * Counts one write of `kind` by `viewer` before it is made, or throws TooManyRequestsError
 * (Retry-After until the account's oldest counted write of that kind leaves the window) when the
 * account already made the limit of them within the window. A refused write is not counted.
 */
export async function countWrite(d: DiscussionDeps, viewer: Viewer, kind: WriteKind): Promise<void> {
  if (viewer.isAdmin) return;
  const rule = d.config.writeLimits[kind];
  const retryAfter = await d.limits.attempt(kind, [`user:${viewer.userId}`], rule, d.clock.now());
  if (retryAfter !== null) {
    const { message, reason } = REFUSALS[kind];
    throw new TooManyRequestsError(message, retryAfter, reason);
  }
}
