/** The discussion's GraphQL resolvers, in the order they appear in the schema's documentation. */
import { AdminResolver } from './admin.resolver';
import { AuthResolver } from './auth.resolver';
import { CommentResolver } from './comment.resolver';
import { GroupResolver } from './group.resolver';
import { PostResolver } from './post.resolver';
import { ReactionResolver } from './reaction.resolver';
import { ThreadResolver } from './thread.resolver';
import { TopicResolver } from './topic.resolver';
import { UserResolver } from './user.resolver';

export const discussionResolvers = [
  TopicResolver,
  CommentResolver,
  ThreadResolver,
  UserResolver,
  GroupResolver,
  AuthResolver,
  PostResolver,
  ReactionResolver,
  AdminResolver,
] as const;
