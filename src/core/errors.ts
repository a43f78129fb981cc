/**
 * The one error vocabulary of the domain. Services throw these; each front door maps them once
 * (REST: status + the body its reference in docs/ gives; GraphQL: extensions.code + extensions.http.status).
 * Nothing here knows about HTTP frameworks; `status` is only the conventional mapping.
 */

/**
 * One problem with one input. `field` names the parameter or property; `exception` is the class name
 * /api/beta shows (docs/discussion-api.md §2.1).
 */
export interface Issue {
  field?: string;
  message: string;
  exception?: string;
}

export type ErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'REQUEST_TIMEOUT'
  | 'SERVICE_UNAVAILABLE'
  | 'INSUFFICIENT_STORAGE'
  | 'CLIENT_CLOSED_REQUEST';

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly status: number;
  /** A stable, machine-readable reason inside the code (e.g. 'INVALID_TOKEN', 'BANNED'). */
  readonly reason?: string;

  constructor(message: string, reason?: string) {
    super(message);
    this.name = new.target.name;
    this.reason = reason;
  }
}

/** Input failed validation; lists every problem found, never only the first. */
export class ValidationError extends AppError {
  readonly code = 'BAD_USER_INPUT' as const;
  readonly status = 400;
  readonly issues: Issue[];
  constructor(issues: Issue[] | string, reason?: string) {
    const list = typeof issues === 'string' ? [{ message: issues }] : issues;
    super(list.map((i) => (i.field ? `${i.field}: ${i.message}` : i.message)).join('; '), reason);
    this.issues = list;
  }
}

export class UnauthenticatedError extends AppError {
  readonly code = 'UNAUTHENTICATED' as const;
  readonly status = 401;
}

export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN' as const;
  readonly status = 403;
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND' as const;
  readonly status = 404;
}

export class ConflictError extends AppError {
  readonly code = 'CONFLICT' as const;
  readonly status = 409;
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE' as const;
  readonly status = 413;
}

export class TooManyRequestsError extends AppError {
  readonly code = 'TOO_MANY_REQUESTS' as const;
  readonly status = 429;
  /** Whole seconds (≥ 1) the client should wait. */
  readonly retryAfter: number;
  constructor(message: string, retryAfter: number, reason?: string) {
    super(message, reason);
    this.retryAfter = Math.max(1, Math.ceil(retryAfter));
  }
}

/** The client sent its request body too slowly: it stalled, or crawled below the minimum rate (408). */
export class RequestTimeoutError extends AppError {
  readonly code = 'REQUEST_TIMEOUT' as const;
  readonly status = 408;
}

/** The client went away mid-request (GraphQL multipart: 499). */
export class ClientClosedRequestError extends AppError {
  readonly code = 'CLIENT_CLOSED_REQUEST' as const;
  readonly status = 499;
}

/** A dependency (the database) is unreachable; the request may succeed later. */
export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE' as const;
  readonly status = 503;
}

/** An upload could not be stored: no space left for its bytes or its metadata (507). */
export class InsufficientStorageError extends AppError {
  readonly code = 'INSUFFICIENT_STORAGE' as const;
  readonly status = 507;
}

/**
 * Whether a write failed for want of space: the OS's ENOSPC / EDQUOT, SQLite's SQLITE_FULL as
 * FerretDB reports it ("database or disk is full (13)"), or MongoDB's OutOfDiskSpace (14031).
 */
export function isNoSpaceError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown; errmsg?: unknown };
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 14031) return true;
  const text = `${typeof e.message === 'string' ? e.message : ''} ${typeof e.errmsg === 'string' ? e.errmsg : ''}`;
  return /database or disk is full|no space left on device|disk quota exceeded/i.test(text);
}

/** For writes of an upload: a refusal for space is the client's 507, whatever store refused. */
export function asUploadStorageError(err: unknown): unknown {
  if (!isNoSpaceError(err) || err instanceof AppError) return err;
  return new InsufficientStorageError('Insufficient storage', 'NO_SPACE');
}

const UNAVAILABLE_ERROR_NAMES = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/**
 * A socket error the MongoDB driver passes on unwrapped: a command written on a connection the
 * database closed a moment before (it was killed) fails with Node's own EPIPE ("This socket has
 * been ended by the other party"), not a MongoNetworkError. Only errors raised inside the driver
 * count: a client's closed socket is not the database being away.
 */
function isDriverSocketError(err: object): boolean {
  const { code, stack } = err as { code?: unknown; stack?: unknown };
  if (code !== 'EPIPE' && code !== 'ECONNRESET') return false;
  return typeof stack === 'string' && /[\\/]node_modules[\\/]mongodb[\\/]/.test(stack);
}

/**
 * `insertMany` (the batched file-metadata insert) wraps a failure of the whole command — a connection
 * the killed database closed, a pool cleared — in a MongoBulkWriteError without per-document write
 * errors or a write-concern error (the driver's "driver related error, not a bulk op error"); a
 * document's own failure (a duplicate key) always carries write errors. Found by the chaos run: 34
 * uploads answered 500 instead of 503 while the database was being relaunched.
 */
function isWholeBulkFailure(err: object): boolean {
  const e = err as { name?: unknown; writeErrors?: unknown; writeConcernError?: unknown };
  if (e.name !== 'MongoBulkWriteError' || e.writeConcernError != null) return false;
  return e.writeErrors == null || (Array.isArray(e.writeErrors) && e.writeErrors.length === 0);
}

/**
 * Classifies an error thrown anywhere below a front door: domain errors pass through, database
 * connectivity failures become ServiceUnavailableError, anything else is unexpected (null).
 * Out of space: the database refusing a write is a 503 (it may have room again later; nothing
 * is wrong with the request), the server's own disk refusing bytes a 507.
 */
export function classifyError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (isNoSpaceError(err)) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return new InsufficientStorageError('Insufficient storage', 'NO_SPACE');
    return new ServiceUnavailableError('The database is out of space, try again later', 'DATABASE_FULL');
  }
  if (err && typeof err === 'object') {
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string' && UNAVAILABLE_ERROR_NAMES.has(name)) {
      return new ServiceUnavailableError('The database is unavailable, try again shortly');
    }
    if (isDriverSocketError(err)) return new ServiceUnavailableError('The database is unavailable, try again shortly');
    if (isWholeBulkFailure(err)) return new ServiceUnavailableError('The database is unavailable, try again shortly');
  }
  return null;
}
