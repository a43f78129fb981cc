/**
 * Failover is a 503, never a 500 (issue 41): every error the MongoDB driver labels retryable or
 * transient, built here with the driver's own public classes as it builds them, is classified as
 * the database being unavailable (SERVICE_UNAVAILABLE, 503, with a Retry-After); the request's own
 * faults (a duplicate key, a bad query) are not.
 */
import mongoose from 'mongoose';
import { classifyError, retryAfterOf, ServiceUnavailableError } from '../../../src/core/errors';

const m = mongoose.mongo;

/** A server's error reply as the driver wraps it (a MongoServerError). */
const server = (code: number, codeName: string, errorLabels?: string[]) =>
  new m.MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} (test)`, ...(errorLabels && { errorLabels }) });

const transient: [string, () => unknown][] = [
  ['NotWritablePrimary (10107)', () => server(10107, 'NotWritablePrimary')],
  ['NotPrimaryNoSecondaryOk (13435)', () => server(13435, 'NotPrimaryNoSecondaryOk')],
  ['NotPrimaryOrSecondary (13436)', () => server(13436, 'NotPrimaryOrSecondary')],
  ['InterruptedAtShutdown (11600)', () => server(11600, 'InterruptedAtShutdown')],
  ['InterruptedDueToReplStateChange (11602)', () => server(11602, 'InterruptedDueToReplStateChange')],
  ['PrimarySteppedDown (189)', () => server(189, 'PrimarySteppedDown')],
  ['ShutdownInProgress (91)', () => server(91, 'ShutdownInProgress')],
  ['HostUnreachable (6)', () => server(6, 'HostUnreachable')],
  ['HostNotFound (7)', () => server(7, 'HostNotFound')],
  ['NetworkTimeout (89)', () => server(89, 'NetworkTimeout')],
  ['SocketException (9001)', () => server(9001, 'SocketException')],
  ['ExceededTimeLimit (262)', () => server(262, 'ExceededTimeLimit')],
  ['LegacyNotPrimary (10058)', () => server(10058, 'LegacyNotPrimary')],
  ['ReadConcernMajorityNotAvailableYet (134)', () => server(134, 'ReadConcernMajorityNotAvailableYet')],
  ['a server error labelled RetryableWriteError', () => server(1, 'InternalError', ['RetryableWriteError'])],
  ['a server error labelled TransientTransactionError', () => server(1, 'X', ['TransientTransactionError'])],
  ['a server error labelled SystemOverloadedError', () => server(1, 'X', ['SystemOverloadedError'])],
  [
    'a driver error labelled ResetPool',
    () => {
      const e = new m.MongoRuntimeError('pool reset');
      e.addErrorLabel('ResetPool');
      return e;
    },
  ],
  ['MongoNetworkError', () => new m.MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
  ['MongoNetworkTimeoutError', () => new m.MongoNetworkTimeoutError('connection timed out')],
  [
    'MongoServerSelectionError',
    () =>
      new m.MongoServerSelectionError('Server selection timed out after 3000 ms', {
        type: 'ReplicaSetNoPrimary',
        servers: new Map(),
      } as never),
  ],
  ['MongoNotConnectedError', () => new m.MongoNotConnectedError('Client must be connected')],
  ['MongoTopologyClosedError', () => new m.MongoTopologyClosedError()],
  ['MongoClientClosedError', () => new m.MongoClientClosedError()],
  ['MongoServerClosedError', () => new m.MongoServerClosedError()],
  ['MongoStalePrimaryError', () => new m.MongoStalePrimaryError('stale primary')],
  [
    'a write-concern error of a stepped-down primary',
    () =>
      new m.MongoWriteConcernError({
        writeConcernError: { code: 189, errmsg: 'primary stepped down', errInfo: {} },
      } as never),
  ],
  [
    'a bulk write failed by a NotWritablePrimary',
    () =>
      new m.MongoBulkWriteError(
        server(10107, 'NotWritablePrimary') as never,
        {
          insertedCount: 0,
          getWriteErrors: () => [{ index: 0, code: 10107 }],
          getWriteConcernError: () => undefined,
        } as never,
      ),
  ],
];

describe('classifyError: transient database errors', () => {
  it.each(transient)('%s is SERVICE_UNAVAILABLE (503) with a Retry-After', (_name, make) => {
    const known = classifyError(make());
    expect(known).toBeInstanceOf(ServiceUnavailableError);
    expect([known?.code, known?.status]).toEqual(['SERVICE_UNAVAILABLE', 503]);
    expect(retryAfterOf(known!)).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['a duplicate key (11000)', () => server(11000, 'DuplicateKey')],
    ['a bad query (2)', () => server(2, 'BadValue')],
    ['an unknown command (59)', () => server(59, 'CommandNotFound')],
    ['a bad argument', () => new m.MongoInvalidArgumentError('bad')],
    ['a plain Error', () => new Error('boom')],
  ])('%s is not (the request itself failed)', (_name, make) => {
    expect(classifyError(make())).toBeNull();
  });
});
