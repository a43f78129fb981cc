/** Accounts: registration, creation by admins and the command line, settings, bans, deletion. */
import type { Actor } from '../core/actor';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../core/errors';
import { hashPassword, verifyPassword } from './auth/password';
import type { AuthService } from './auth.service';
import type { DiscussionDeps } from './deps';
import type { UserDoc } from './models';
import type { Caller, UserApi } from './services';
import { isPossibleUsername } from './user.rules';
import { CreateUserInput, RegisterInput } from './inputs/account.input';
import { SettingsInput } from './inputs/settings.input';
import { validateInput } from './inputs/validate';
import { accountView, userView } from './view-builders';
import { recordAccountRevoked } from './live-events';
import { requireAdmin } from './viewer';
import type { AccountView, TokenResult, UserSettings, UserView } from './views';

export class UserService implements UserApi {
  constructor(
    private readonly d: DiscussionDeps,
    private readonly auth: AuthService,
  ) {}

  async register(actor: Actor, input: RegisterInput): Promise<TokenResult> {
    if (!this.d.config.registrationOpen) throw new ForbiddenError('Registration is closed', 'REGISTRATION_CLOSED');
    if (actor.kind === 'user')
      throw new ForbiddenError('Log out before registering a new account', 'ALREADY_LOGGED_IN');
    validateInput(RegisterInput, input);
    if (input.clientAddress !== undefined) await this.countRegistration(input.clientAddress);
    const user = await this.insert(input, false);
    return this.auth.tokenFor(user);
  }

  /**
   * The registration rate limit: a valid registration request (taken usernames included, so the
   * limit also bounds probing for names) counts against its client address; once the address
   * holds the limit within the window the request is refused without being counted.
   */
  private async countRegistration(clientAddress: string): Promise<void> {
    const rule = {
      limit: this.d.config.registrationRateLimit,
      windowSeconds: this.d.config.registrationRateWindowSeconds,
    };
    const retryAfter = await this.d.limits.attempt('register', [`addr:${clientAddress}`], rule, this.d.clock.now());
    if (retryAfter !== null)
      throw new TooManyRequestsError(
        'Too many registrations, try again later',
        retryAfter,
        'REGISTRATION_RATE_LIMITED',
      );
  }

  async create(caller: Caller, input: CreateUserInput): Promise<UserView> {
    requireAdmin(caller);
    validateInput(CreateUserInput, input);
    return userView(await this.insert(input, input.isAdmin === true));
  }

  /** Inserts an account whose username and password passed their rules. */
  private async insert(input: CreateUserInput, isAdmin: boolean): Promise<UserDoc> {
    if (await this.d.users.findByUsername(input.username))
      throw new ConflictError('That username is already taken', 'USERNAME_TAKEN');
    const user = await this.d.users.insertNew({
      username: input.username,
      usernameLower: input.username.toLowerCase(),
      passwordHash: await hashPassword(input.password),
      isAdmin,
      banned: false,
      deleted: false,
      tokenVersion: 0,
      settings: { historyVisibility: 'everyone', collapseOldComments: true, defaultCommentOrder: 'relevance' },
      ignoredTopicIds: [],
      createdAt: this.d.clock.now(),
    });
    // The lookup above answers the common case early; the unique index decides races.
    if (!user) throw new ConflictError('That username is already taken', 'USERNAME_TAKEN');
    return user;
  }

  async me(actor: Actor): Promise<AccountView> {
    return accountView(await this.self(actor));
  }

  async updateSettings(actor: Actor, patch: SettingsInput): Promise<AccountView> {
    const user = await this.self(actor);
    const settings = validateInput(SettingsInput, patch);
    const given = Object.entries(settings).filter(([, v]) => v !== undefined);
    const changed = Object.fromEntries(given) as Partial<UserSettings>;
    const updated = await this.d.users.updateSettings(user._id, changed);
    this.d.viewers.forget(actor);
    return accountView(updated ?? user);
  }

  async deleteAccount(actor: Actor, password: string): Promise<void> {
    const user = await this.self(actor);
    if (typeof password !== 'string' || !(await verifyPassword(password, user.passwordHash))) {
      // Bad input, not a bad token: the caller stays logged in.
      throw new ValidationError([{ field: 'password', message: 'The password is not correct' }], 'WRONG_PASSWORD');
    }
    await this.d.users.markDeleted(user._id);
    this.d.viewers.forget(actor);
    await recordAccountRevoked(this.d, user._id);
  }

  async getByUsername(_actor: Actor, username: string): Promise<UserView> {
    return userView(await this.find(username));
  }

  async findByIds(ids: readonly number[]): Promise<(UserView | null)[]> {
    const docs = await this.d.users.findByIds(ids);
    const byId = new Map(docs.map((u) => [u._id, u]));
    return ids.map((id) => {
      const u = byId.get(id);
      return u ? userView(u) : null;
    });
  }

  async ban(caller: Caller, username: string): Promise<UserView> {
    return this.setBanned(caller, username, true);
  }

  async unban(caller: Caller, username: string): Promise<UserView> {
    return this.setBanned(caller, username, false);
  }

  private async setBanned(caller: Caller, username: string, banned: boolean): Promise<UserView> {
    requireAdmin(caller);
    const user = await this.find(username);
    const updated = await this.d.users.setBanned(user._id, banned);
    if (!updated) throw new NotFoundError('User not found', 'USER_NOT_FOUND');
    // A ban ends the user's live subscriptions.
    await recordAccountRevoked(this.d, user._id);
    return userView(updated);
  }

  /** A user by username (case-insensitive), deleted ones included. */
  async find(username: string): Promise<UserDoc> {
    const user =
      typeof username === 'string' && isPossibleUsername(username) ? await this.d.users.findByUsername(username) : null;
    if (!user) throw new NotFoundError('User not found', 'USER_NOT_FOUND');
    return user;
  }

  private async self(actor: Actor): Promise<UserDoc> {
    if (actor.kind !== 'user') throw new UnauthenticatedError('Authentication required', 'AUTHENTICATION_REQUIRED');
    const user = await this.d.users.findById(actor.userId);
    if (!user || user.deleted || user.banned)
      throw new UnauthenticatedError('Invalid or expired token', 'INVALID_TOKEN');
    return user;
  }
}
