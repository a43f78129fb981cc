/** Small helpers shared by the discussion resolvers. */
import { NotFoundError } from '../../core/errors';

/** The value, or null when the service says it does not exist (nullable lookups such as `topic(id)`). */
export async function orNull<T>(call: Promise<T>): Promise<T | null> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** How every argument naming a topic or a comment describes what it accepts. */
export const TOPIC_ID_DESCRIPTION = 'The topic: its global `id`, or its `id36` (the REST id).';
export const COMMENT_ID_DESCRIPTION = 'The comment: its global `id`, or its `id36` (the REST id).';
