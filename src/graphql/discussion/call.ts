/** Small helpers shared by the discussion resolvers. */
import { NotFoundError, ValidationError } from '../../core/errors';
import type { GraphQLContext } from '../context';

/**
 * Runs a service call and renames the `field` of its validation issues to the GraphQL argument
 * names (`topic_id36` → `id`, …), so BAD_USER_INPUT names what the client actually sent.
 */
export async function withFields<T>(call: Promise<T>, renames: Record<string, string>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof ValidationError && err.issues.some((i) => i.field !== undefined && i.field in renames)) {
      const renamed = new ValidationError(
        err.issues.map((i) => (i.field !== undefined && i.field in renames ? { ...i, field: renames[i.field] } : i)),
        err.reason,
      );
      renamed.stack = err.stack;
      throw renamed;
    }
    throw err;
  }
}

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

/** Field names the services may use for an id given as the GraphQL argument `id`. */
export const TOPIC_ID = { topic_id36: 'id', topicId: 'id', topic: 'id', id36: 'id' };
export const COMMENT_ID = { comment_id36: 'id', commentId: 'id', comment: 'id', id36: 'id' };

/** Stores a value computed ahead (lookahead) where memo() will find it. */
export function remember<T>(ctx: GraphQLContext, key: string, value: T): T {
  ctx.loaders.set(`memo:${key}`, value);
  return value;
}
