/**
 * Which MongoDB driver errors mean "the database is away for now" (an election, a restart, a
 * network fault, an overloaded server), told by the driver's public error classes, error labels
 * and the server's error codes, never by message text. classifyError (core/errors.ts) answers them
 * 503 with Retry-After on REST and SERVICE_UNAVAILABLE on GraphQL: the request may succeed when
 * retried, and nothing is wrong with it.
 */
import mongoose from 'mongoose';

const {
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
  MongoClientClosedError,
  MongoServerClosedError,
  MongoStalePrimaryError,
} = mongoose.mongo;

/**
 * Labels the driver or the server put on an error that a retry may get past: a write the driver
 * may retry, a transaction to start again, a pool cleared for a fault, a server shedding load.
 */
const TRANSIENT_LABELS: readonly string[] = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.RetryableError,
  MongoErrorLabel.SystemOverloadedError,
];

/**
 * The server's codes for "not now": the retryable-reads and retryable-writes specifications' list
 * (a node stepping down, shutting down or recovering, a host unreachable) and the legacy "not
 * primary" code. The driver keeps this list internal, so it is written out here.
 */
const TRANSIENT_CODES = new Set<number>([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * The driver's errors about the deployment rather than the request: no server to select, a network
 * fault (a pool cleared for one included), a client, topology or server closed, a stale primary.
 */
const UNAVAILABLE_CLASSES = [
  MongoNetworkError,
  MongoServerSelectionError,
  MongoNotConnectedError,
  MongoTopologyClosedError,
  MongoClientClosedError,
  MongoServerClosedError,
  MongoStalePrimaryError,
];

/**
 * The same for the pool's errors the driver exports no class for (a closed pool, a wait for a
 * connection that timed out): told by their `name`, which each of them defines.
 */
const UNAVAILABLE_NAMES = new Set(['MongoPoolClosedError', 'MongoWaitQueueTimeoutError']);

/** The code of a server error, or of the write-concern error a write was answered with. */
function codeOf(err: InstanceType<typeof MongoError>): number | undefined {
  if (typeof err.code === 'number') return err.code;
  const wce = (err as { result?: { writeConcernError?: { code?: unknown } } }).result?.writeConcernError;
  return typeof wce?.code === 'number' ? wce.code : undefined;
}

/** Whether `err` says the database is away for now (a retry may succeed), by the driver's public vocabulary. */
export function isTransientDatabaseError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (UNAVAILABLE_CLASSES.some((cls) => err instanceof cls)) return true;
  if (UNAVAILABLE_NAMES.has(err.name)) return true;
  if (!(err instanceof MongoError)) return false;
  if (TRANSIENT_LABELS.some((label) => err.hasErrorLabel(label))) return true;
  const code = codeOf(err);
  return code !== undefined && TRANSIENT_CODES.has(code);
}
