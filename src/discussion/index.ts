/** Composition root of the discussion domain: repositories → services. */
import type { Actor } from '../core/actor';
import { ANONYMOUS } from '../core/actor';
import { UnauthenticatedError } from '../core/errors';
import type { DomainModule, ModuleContext } from '../module';

export interface DiscussionServices {
  auth: {
    /** The caller named by an Authorization header: anonymous when absent; throws UnauthenticatedError when invalid. */
    actorFor(authorization: string | undefined): Promise<Actor>;
  };
}

export async function createDiscussion(_ctx: ModuleContext): Promise<DomainModule<DiscussionServices>> {
  return {
    services: {
      auth: {
        async actorFor(authorization) {
          if (authorization === undefined) return ANONYMOUS;
          throw new UnauthenticatedError('Invalid or expired token', 'INVALID_TOKEN');
        },
      },
    },
  };
}
