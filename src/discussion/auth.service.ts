/** Tokens, login (with its rate limit), log out everywhere, password changes. */
import crypto from 'node:crypto';
import type { Actor } from '../core/actor';
import { ANONYMOUS } from '../core/actor';
import { Issue, TooManyRequestsError, UnauthenticatedError, ValidationError } from '../core/errors';
import { bearerToken, signToken, verifyToken } from './auth/token';
import { dummyHash, hashPassword, verifyPassword } from './auth/password';
import type { DiscussionDeps } from './deps';
import { recordAccountRevoked } from './live-events';
import type { UserDoc } from './models';
import type { AuthApi } from './services';
import { MAX_PASSWORD } from './user.rules';
import { ChangePasswordInput, type LoginInput } from './inputs/account.input';
import { issuesOf, toInput } from './inputs/validate';
import { userView } from './view-builders';
import type { TokenResult } from './views';

const INVALID_TOKEN = () => new UnauthenticatedError('Invalid or expired token', 'INVALID_TOKEN');
const BAD_CREDENTIALS = () => new UnauthenticatedError('Invalid username or password', 'INVALID_CREDENTIALS');

/** Counter key of a username; long inputs (which name no account anyway) are hashed to bound the key. */
function usernameKey(username: string): string {
  const lower = username.toLowerCase();
  return lower.length <= 64 ? `user:${lower}` : `user#${crypto.createHash('sha256').update(lower).digest('hex')}`;
}

export class AuthService implements AuthApi {
  constructor(private readonly d: DiscussionDeps) {}

  private nowSeconds(): number {
    return Math.floor(this.d.clock.now().getTime() / 1000);
  }

  async actorFor(authorization: string | undefined): Promise<Actor> {
    if (authorization === undefined) return ANONYMOUS;
    const token = bearerToken(authorization);
    if (token === null) throw INVALID_TOKEN();
    return this.actorForToken(token);
  }

  async actorForToken(token: string): Promise<Actor> {
    const claims = verifyToken(token, this.d.jwtSecret, this.nowSeconds());
    if (!claims) throw INVALID_TOKEN();
    const user = await this.d.users.findById(Number(claims.sub));
    if (!user || user.deleted || user.banned || user.tokenVersion !== claims.tv) throw INVALID_TOKEN();
    const actor: Actor = { kind: 'user', userId: user._id, username: user.username, isAdmin: user.isAdmin };
    this.d.viewers.remember(actor, user);
    return actor;
  }

  /** A signed token for `user` as it is now. */
  tokenFor(user: UserDoc): TokenResult {
    const iat = this.nowSeconds();
    const exp = iat + this.d.config.jwtLifetimeSeconds;
    const token = signToken(
      { sub: String(user._id), username: user.username, iat, exp, tv: user.tokenVersion },
      this.d.jwtSecret,
    );
    return { token, expiresAt: exp, user: userView(user) };
  }

  async login(input: LoginInput): Promise<TokenResult> {
    if (typeof input.username !== 'string' || typeof input.password !== 'string') {
      throw new ValidationError([{ field: 'username', message: 'username and password must be strings' }]);
    }
    await this.countAttempt(input.clientAddress, input.username);
    const user = await this.d.users.findByUsername(input.username);
    if (!user || user.deleted) {
      // Same work as a real check, so the response time does not tell unknown users apart.
      await verifyPassword(input.password, await dummyHash());
      throw BAD_CREDENTIALS();
    }
    if (!(await verifyPassword(input.password, user.passwordHash))) throw BAD_CREDENTIALS();
    if (user.banned) throw new UnauthenticatedError('That account has been banned', 'BANNED');
    return this.tokenFor(user);
  }

  /**
   * The login rate limit (docs/discussion-api.md §3.2): refuses when the address or the username already
   * holds the limit of attempts within the window, otherwise counts this attempt against both.
   */
  private async countAttempt(clientAddress: string, username: string): Promise<void> {
    const rule = { limit: this.d.config.loginRateLimit, windowSeconds: this.d.config.loginRateWindowSeconds };
    const retryAfter = await this.d.limits.attempt(
      'login',
      [`addr:${clientAddress}`, usernameKey(username)],
      rule,
      this.d.clock.now(),
    );
    if (retryAfter !== null)
      throw new TooManyRequestsError('Too many login attempts, try again later', retryAfter, 'LOGIN_RATE_LIMITED');
  }

  async issueToken(actor: Actor): Promise<TokenResult> {
    const user = await this.loadSelf(actor);
    return this.tokenFor(user);
  }

  async logoutEverywhere(actor: Actor): Promise<void> {
    const user = await this.loadSelf(actor);
    await this.d.users.bumpTokenVersion(user._id);
    this.d.viewers.forget(actor);
    await recordAccountRevoked(this.d, user._id);
  }

  async changePassword(actor: Actor, input: ChangePasswordInput): Promise<TokenResult> {
    const user = await this.loadSelf(actor);
    // A wrong current password is bad input, not a bad token: the caller stays logged in.
    const issues: Issue[] = [];
    if (
      typeof input.currentPassword !== 'string' ||
      input.currentPassword.length > MAX_PASSWORD ||
      !(await verifyPassword(input.currentPassword, user.passwordHash))
    ) {
      issues.push({ field: 'currentPassword', message: 'The current password is not correct' });
    }
    issues.push(...issuesOf(toInput(ChangePasswordInput, input)));
    if (issues.length > 0)
      throw new ValidationError(issues, issues[0]!.field === 'currentPassword' ? 'WRONG_PASSWORD' : undefined);
    const updated = await this.d.users.setPasswordHash(user._id, await hashPassword(input.newPassword));
    if (!updated) throw INVALID_TOKEN();
    this.d.viewers.forget(actor);
    await recordAccountRevoked(this.d, user._id);
    return this.tokenFor(updated);
  }

  private async loadSelf(actor: Actor): Promise<UserDoc> {
    if (actor.kind !== 'user') throw new UnauthenticatedError('Authentication required', 'AUTHENTICATION_REQUIRED');
    const user = await this.d.users.findById(actor.userId);
    if (!user || user.deleted || user.banned) throw INVALID_TOKEN();
    return user;
  }
}
