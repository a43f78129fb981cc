/** Accounts: register, login, tokens, password and settings. */
import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { TokenResult, UserSettings as SettingsView } from '../../discussion/views';
import type { GraphQLContext } from '../context';
import { AuthPayload, UpdateSettingsInput } from './auth.type';
import { primeUser } from './loaders';
import { UserNode, userNode } from './nodes';
import { discussion } from './request-scope';
import { User } from './user.type';

function payload(ctx: GraphQLContext, r: TokenResult): AuthPayload {
  primeUser(ctx, r.user);
  return { token: r.token, expiresAt: new Date(r.expiresAt * 1000), user: userNode(r.user) };
}

@Resolver()
export class AuthResolver {
  @Mutation(() => AuthPayload, {
    nullable: true,
    description:
      'Creates an account (while registration is open) and logs it in. Usernames: 3–20 letters, ' +
      'digits, `_` or `-`; passwords: at least 8 characters. ' +
      'Registrations per client address are limited (REGISTRATION_RATE_LIMIT within ' +
      'REGISTRATION_RATE_WINDOW): over it, TOO_MANY_REQUESTS (HTTP 429) with `retryAfter`.',
  })
  async register(
    @Arg('username', () => String, { description: 'The new username (unique regardless of letter case).' })
    username: string,
    @Arg('password', () => String, { description: 'The new password (at least 8 characters).' }) password: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    return payload(
      ctx,
      await discussion(ctx).users.register(ctx.actor, { username, password, clientAddress: ctx.request.ip }),
    );
  }

  @Mutation(() => AuthPayload, {
    nullable: true,
    description:
      'Exchanges a username and password for a bearer token (the same login as REST `POST /login`, ' +
      'sharing its rate limit: TOO_MANY_REQUESTS with `retryAfter`).',
  })
  async login(
    @Arg('username', () => String, { description: 'The username, in any letter case.' }) username: string,
    @Arg('password', () => String, { description: 'The password.' }) password: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    return payload(ctx, await discussion(ctx).auth.login({ username, password, clientAddress: ctx.request.ip }));
  }

  @Mutation(() => Boolean, {
    nullable: true,
    description: 'Revokes every token of the logged-in user, the one in use included. Always true.',
  })
  async logoutEverywhere(@Ctx() ctx: GraphQLContext): Promise<boolean> {
    await discussion(ctx).auth.logoutEverywhere(ctx.actor);
    return true;
  }

  @Mutation(() => AuthPayload, {
    nullable: true,
    description:
      "Changes the logged-in user's password; every older token stops working and a new one is returned. " +
      'A wrong current password is BAD_USER_INPUT on `currentPassword` (the token in use stays valid).',
  })
  async changePassword(
    @Arg('currentPassword', () => String, { description: 'The password in use now.' }) currentPassword: string,
    @Arg('newPassword', () => String, { description: 'The new password (at least 8 characters).' }) newPassword: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AuthPayload> {
    return payload(ctx, await discussion(ctx).auth.changePassword(ctx.actor, { currentPassword, newPassword }));
  }

  @Mutation(() => User, {
    nullable: true,
    description: "Changes the logged-in user's settings; read them back with `viewer { settings { … } }`.",
  })
  async updateSettings(
    @Arg('input', () => UpdateSettingsInput, { description: 'The settings to change.' }) input: UpdateSettingsInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<UserNode> {
    const patch: Partial<SettingsView> = {};
    if (input.historyVisibility != null) patch.historyVisibility = input.historyVisibility;
    if (input.collapseOldComments != null) patch.collapseOldComments = input.collapseOldComments;
    if (input.defaultCommentOrder != null) patch.defaultCommentOrder = input.defaultCommentOrder;
    const me = await discussion(ctx).users.updateSettings(ctx.actor, patch);
    primeUser(ctx, me);
    return userNode(me);
  }
}
