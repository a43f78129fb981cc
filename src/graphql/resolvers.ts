/** Every resolver class of the schema. Each area adds its own here. */
import type { NonEmptyArray } from 'type-graphql';
import { ServerInfoResolver } from './server-info.resolver';
import { FileResolver } from './files';
import { discussionResolvers } from './discussion';
import { NodeResolver } from './node/node.resolver';
import { LiveResolver } from './subscriptions/resolver';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const resolvers: NonEmptyArray<Function> = [
  NodeResolver,
  ServerInfoResolver,
  ...discussionResolvers,
  FileResolver,
  LiveResolver,
];
