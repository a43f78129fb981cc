import { Field, InputType, ObjectType } from 'type-graphql';
import { CommentOrder, HistoryVisibility } from './enums';
import type { UserNode } from './nodes';
import { DateTimeScalar } from './scalars';
import { User } from './user.type';

@ObjectType('AuthPayload', {
  simpleResolvers: true,
  description: 'A bearer token and whom it names. Send it as `Authorization: Bearer <token>` to GraphQL or REST.',
})
export class AuthPayload {
  @Field(() => String, { description: 'The JWT (HS256); valid on both front doors until it expires or is revoked.' })
  token!: string;

  @Field(() => DateTimeScalar, { description: 'When the token expires.' })
  expiresAt!: Date;

  @Field(() => User, { description: 'The user the token names.' })
  user!: UserNode;
}

@InputType('UpdateSettingsInput', { description: 'Settings to change; omitted ones keep their value.' })
export class UpdateSettingsInput {
  @Field(() => HistoryVisibility, { nullable: true, description: 'Who may read your history.' })
  historyVisibility?: HistoryVisibility | null;

  @Field(() => Boolean, { nullable: true, description: 'Collapse comments already seen on a previous visit.' })
  collapseOldComments?: boolean | null;

  @Field(() => CommentOrder, { nullable: true, description: 'Your preferred comment order.' })
  defaultCommentOrder?: CommentOrder | null;
}
