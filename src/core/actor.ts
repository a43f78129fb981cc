/** Who is calling a service: resolved once per request by the front door from its credentials. */
export type Actor = { kind: 'anonymous' } | { kind: 'user'; userId: number; username: string; isAdmin: boolean };

export const ANONYMOUS: Actor = Object.freeze({ kind: 'anonymous' });
