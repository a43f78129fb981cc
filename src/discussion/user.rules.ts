/** Account rules (docs/discussion-api.md §3.6), shared by registration, the command line and GraphQL. */

const USERNAME = /^[a-z0-9]([a-z0-9]|[_-](?![_-]))*[a-z0-9]$/i;
export const MIN_PASSWORD = 8;
/** Generous upper bound so hashing cost stays bounded. */
export const MAX_PASSWORD = 4096;

/** What is wrong with a username, or null. */
export function usernameProblem(username: unknown): string | null {
  if (typeof username !== 'string') return 'Username must be a string';
  if (username.length < 3 || username.length > 20) return 'Username must be between 3 and 20 characters long';
  if (!USERNAME.test(username)) {
    return (
      'Username may contain only letters, numbers, "_" and "-", must start and end with a letter or number, ' +
      'and may not have two "_" or "-" in a row'
    );
  }
  return null;
}

/** Whether a username could exist at all (lookups of impossible names answer not-found directly). */
export function isPossibleUsername(username: string): boolean {
  return usernameProblem(username) === null;
}

/** What is wrong with a new password, or null. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'Password must be a string';
  if ([...password].length < MIN_PASSWORD) return `Password must be at least ${MIN_PASSWORD} characters long`;
  if (password.length > MAX_PASSWORD) return `Password must be at most ${MAX_PASSWORD} characters long`;
  return null;
}
