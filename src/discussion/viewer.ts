/**
 * The logged-in caller's own record, as the services need it for viewer-specific fields
 * (ignored topics, settings). Token verification loads the user anyway; the loaded record is kept
 * for the lifetime of that request's actor object, so no service reads it twice.
 */
import type { Actor } from '../core/actor';
import { ForbiddenError, UnauthenticatedError } from '../core/errors';
import type { UserDoc } from './models';
import type { Caller } from './services';
import type { UserRepository } from './user.repository';
import type { UserSettings } from './views';

export interface Viewer {
  userId: number;
  username: string;
  isAdmin: boolean;
  settings: UserSettings;
  ignoredTopicIds: ReadonlySet<number>;
}

export function viewerFromDoc(u: UserDoc): Viewer {
  return {
    userId: u._id,
    username: u.username,
    isAdmin: u.isAdmin,
    settings: {
      historyVisibility: u.settings?.historyVisibility ?? 'everyone',
      collapseOldComments: u.settings?.collapseOldComments ?? true,
      defaultCommentOrder: u.settings?.defaultCommentOrder ?? 'relevance',
    },
    ignoredTopicIds: new Set(u.ignoredTopicIds ?? []),
  };
}

export class ViewerDirectory {
  private readonly cache = new WeakMap<object, Viewer>();

  constructor(private readonly users: UserRepository) {}

  /** Remembers the user record loaded while verifying the token that produced `actor`. */
  remember(actor: Actor, user: UserDoc): void {
    this.cache.set(actor, viewerFromDoc(user));
  }

  /** Forgets what was remembered (after the caller changed their own record). */
  forget(actor: Actor): void {
    this.cache.delete(actor);
  }

  /** null for anonymous callers; otherwise the caller's record (loaded once per actor). */
  async of(actor: Actor): Promise<Viewer | null> {
    if (actor.kind !== 'user') return null;
    const cached = this.cache.get(actor);
    if (cached) return cached;
    const user = await this.users.findById(actor.userId);
    if (!user || user.deleted || user.banned)
      throw new UnauthenticatedError('Invalid or expired token', 'INVALID_TOKEN');
    const viewer = viewerFromDoc(user);
    this.cache.set(actor, viewer);
    return viewer;
  }

  /** The caller's record; UnauthenticatedError (AUTHENTICATION_REQUIRED) for anonymous callers. */
  async require(actor: Actor): Promise<Viewer> {
    const v = await this.of(actor);
    if (!v) throw new UnauthenticatedError('Authentication required', 'AUTHENTICATION_REQUIRED');
    return v;
  }
}

/** Passes for the system and for admins; Unauthenticated for anonymous, Forbidden for others. */
export function requireAdmin(caller: Caller): void {
  if (caller.kind === 'system') return;
  if (caller.kind === 'anonymous') throw new UnauthenticatedError('Authentication required', 'AUTHENTICATION_REQUIRED');
  if (!caller.isAdmin) throw new ForbiddenError('Only admins can do that', 'ADMIN_REQUIRED');
}

/** Whether `caller` may see removed content of `authorId` (its author or an admin). */
export function mayModerate(caller: Caller | Viewer | null, authorId: number): boolean {
  if (!caller) return false;
  if ('kind' in caller) {
    if (caller.kind === 'system') return true;
    if (caller.kind === 'anonymous') return false;
  }
  return caller.isAdmin || caller.userId === authorId;
}
