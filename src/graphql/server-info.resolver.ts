import { Field, ObjectType, Query, Resolver, Ctx } from 'type-graphql';
import { VERSION } from '../version';
import type { GraphQLContext } from './context';

@ObjectType({ description: 'Facts about this server.' })
export class ServerInfo {
  @Field(() => String, { description: 'The Agora version.' })
  version!: string;

  @Field(() => String, {
    description: 'Which database the server uses: external MongoDB, mongod, FerretDB or mongodb-memory-server.',
  })
  database!: string;
}

@Resolver()
export class ServerInfoResolver {
  @Query(() => ServerInfo, { description: 'The server version and the kind of database in use.' })
  serverInfo(@Ctx() ctx: GraphQLContext): ServerInfo {
    return { version: VERSION, database: ctx.services.runtime.databaseKind };
  }
}
