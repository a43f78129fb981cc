/** Accounts (docs/discussion-api.md §3): creation, registration, login, password change. */
import { NewPassword, Username } from './rules';

export class CreateUserInput {
  @Username() username!: string;
  @NewPassword() password!: string;
  isAdmin?: boolean;
}

export class RegisterInput {
  @Username() username!: string;
  @NewPassword() password!: string;
  /**
   * The client's address, for the per-address registration limit (REGISTRATION_RATE_LIMIT).
   * Front doors always pass it; in-process callers without one (tests, fixtures) are not limited.
   */
  clientAddress?: string;
}

/** Credentials are only compared, never judged: a login has no rules of its own. */
export interface LoginInput {
  username: string;
  password: string;
  /** The client's address, for the per-address rate limit counter. */
  clientAddress: string;
}

export class ChangePasswordInput {
  /** Compared with the stored hash by the service (a wrong one is listed with newPassword's problems). */
  currentPassword!: string;
  @NewPassword() newPassword!: string;
}
