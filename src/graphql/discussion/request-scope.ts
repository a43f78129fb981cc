/** What a discussion resolver reads from its request: the services and the public base URL. */
import type { DiscussionServiceSet } from '../../discussion/services';
import { publicBaseUrl } from '../../public-url';
import type { GraphQLContext } from '../context';
import { memo } from './loaders';

/** The discussion services with their full contract (services.ts). */
export function discussion(ctx: GraphQLContext): DiscussionServiceSet {
  return ctx.services.discussion;
}

/** `{base}` of absolute URLs (docs/discussion-api.md §1.4): the one rule of src/public-url.ts, once per request. */
export function baseUrl(ctx: GraphQLContext): string {
  return memo(ctx, 'baseUrl', () => publicBaseUrl(ctx.request, ctx.config.publicUrl));
}
