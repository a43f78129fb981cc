/** CommentThread.descendants: a thread's replies at every depth, flat, in display order. */
import { FieldResolver, Resolver, Root } from 'type-graphql';
import { CommentThread } from './comment.type';
import { descendantsOf, ThreadNode } from './nodes';

@Resolver(() => CommentThread)
export class ThreadResolver {
  @FieldResolver(() => [CommentThread], {
    description:
      'Every reply below this comment, at any depth, in display order (depth-first, as REST nests them), ' +
      'each with its ' +
      '`depth`: a client renders a whole thread with one flat selection.',
  })
  descendants(@Root() t: ThreadNode): ThreadNode[] {
    return descendantsOf(t);
  }
}
