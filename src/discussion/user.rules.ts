/** Account rules (docs/discussion-api.md §3.6), shared by registration, the command line and GraphQL. */
import type { Issue } from '../core/errors';

const USERNAME = /^[a-z0-9]([a-z0-9]|[_-](?![_-]))*[a-z0-9]$/i;
export const MIN_PASSWORD = 8;
/** Generous upper bound so hashing cost stays bounded. */
export const MAX_PASSWORD = 4096;

export function checkUsername(username: unknown, field = 'username'): Issue[] {
  if (typeof username !== 'string') return [{ field, message: 'Username must be a string' }];
  if (username.length < 3 || username.length > 20) return [{ field, message: 'Username must be between 3 and 20 characters long' }];
  if (!USERNAME.test(username)) {
    return [{ field, message: 'Username may contain only letters, numbers, "_" and "-", must start and end with a letter or number, and may not have two "_" or "-" in a row' }];
  }
  return [];
}

/** Whether a username could exist at all (lookups of impossible names answer not-found directly). */
export function isPossibleUsername(username: string): boolean {
  return checkUsername(username).length === 0;
}

export function checkPassword(password: unknown, field = 'password'): Issue[] {
  if (typeof password !== 'string') return [{ field, message: 'Password must be a string' }];
  if ([...password].length < MIN_PASSWORD) return [{ field, message: `Password must be at least ${MIN_PASSWORD} characters long` }];
  if (password.length > MAX_PASSWORD) return [{ field, message: `Password must be at most ${MAX_PASSWORD} characters long` }];
  return [];
}
