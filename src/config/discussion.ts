import { EnvReader } from './reader';

export interface DiscussionConfig {
  /** Login attempts allowed per client address and per username within the window. */
  loginRateLimit: number;
  loginRateWindowSeconds: number;
  /** Token lifetime in seconds (default 30 days). */
  jwtLifetimeSeconds: number;
  /** Anyone may register through GraphQL; off → only the CLI creates accounts. */
  registrationOpen: boolean;
  /** Registrations allowed per client address within the window; 0 = no limit. */
  registrationRateLimit: number;
  registrationRateWindowSeconds: number;
  /**
   * Writes allowed per account within each window (src/discussion/write-limits.ts); limit 0 = no
   * limit. Above a person's pace, below a script's.
   */
  writeLimits: Record<'topic' | 'comment' | 'vote' | 'label', { limit: number; windowSeconds: number }>;
  /** Comments of recently read topics kept per process (comment-cache.ts); capacity or bytes 0 = off. */
  commentCache: { capacity: number; maxAgeSeconds: number; bytes: number };
}

export function readDiscussionConfig(r: EnvReader): DiscussionConfig {
  return {
    loginRateLimit: r.int('LOGIN_RATE_LIMIT', 20, 1, 1_000_000),
    loginRateWindowSeconds: r.int('LOGIN_RATE_WINDOW', 3600, 1, 86_400 * 30),
    jwtLifetimeSeconds: r.int('JWT_LIFETIME', 30 * 86_400, 60, 86_400 * 3650),
    registrationOpen: r.bool('REGISTRATION_OPEN', true),
    registrationRateLimit: r.int('REGISTRATION_RATE_LIMIT', 10, 0, 1_000_000),
    registrationRateWindowSeconds: r.int('REGISTRATION_RATE_WINDOW', 3600, 1, 86_400 * 30),
    writeLimits: {
      topic: writeLimit(r, 'TOPIC', 10),
      comment: writeLimit(r, 'COMMENT', 30),
      vote: writeLimit(r, 'VOTE', 120),
      label: writeLimit(r, 'LABEL', 60),
    },
    commentCache: {
      capacity: r.int('COMMENT_CACHE_SIZE', 50_000, 0, 10_000_000),
      maxAgeSeconds: r.int('COMMENT_CACHE_SECONDS', 60, 1, 86_400),
      bytes: r.int('COMMENT_CACHE_BYTES', 128 * 1024 * 1024, 0),
    },
  };
}

/** `<NAME>_RATE_LIMIT` writes (0 = no limit) per account within `<NAME>_RATE_WINDOW` seconds (default 10 minutes). */
function writeLimit(r: EnvReader, name: string, limit: number): { limit: number; windowSeconds: number } {
  return {
    limit: r.int(`${name}_RATE_LIMIT`, limit, 0, 1_000_000),
    windowSeconds: r.int(`${name}_RATE_WINDOW`, 600, 1, 86_400 * 30),
  };
}
