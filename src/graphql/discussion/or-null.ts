/** Nullable lookups: a service's NotFoundError read as GraphQL's null. */
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
