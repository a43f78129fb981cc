/** How the error vocabulary classifies running out of space and the driver's unwrapped socket errors. */
import { classifyError, InsufficientStorageError, isNoSpaceError } from '../../../src/core/errors';
import { ServiceUnavailableError } from '../../../src/core/errors';

const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 });
// What FerretDB answers when SQLite cannot grow its file (a MongoServerError, code 1).
const sqliteFull = Object.assign(new Error('[db.go:167 fsql.(*DB).InTransaction] database or disk is full (13)'), {
  name: 'MongoServerError',
  code: 1,
});

describe('out of space', () => {
  it("recognises ENOSPC, EDQUOT, SQLite's SQLITE_FULL through FerretDB and MongoDB's OutOfDiskSpace", () => {
    expect(isNoSpaceError(enospc)).toBe(true);
    expect(isNoSpaceError(Object.assign(new Error('quota'), { code: 'EDQUOT' }))).toBe(true);
    expect(isNoSpaceError(sqliteFull)).toBe(true);
    expect(isNoSpaceError(Object.assign(new Error('x'), { code: 14031 }))).toBe(true);
    expect(isNoSpaceError(new Error('duplicate key'))).toBe(false);
    expect(isNoSpaceError(undefined)).toBe(false);
  });

  it('the disk refusing bytes is 507; the database refusing a write is 503 (DATABASE_FULL)', () => {
    const disk = classifyError(enospc);
    expect(disk).toBeInstanceOf(InsufficientStorageError);
    expect([disk?.status, disk?.code, disk?.message]).toEqual([507, 'INSUFFICIENT_STORAGE', 'Insufficient storage']);
    const db = classifyError(sqliteFull);
    expect(db).toBeInstanceOf(ServiceUnavailableError);
    expect([db?.status, db?.reason]).toEqual([503, 'DATABASE_FULL']);
  });
});

describe('socket errors', () => {
  const epipe = (stack: string) =>
    Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE', stack });

  it('an EPIPE raised inside the MongoDB driver is the database being away (503)', () => {
    const at = '    at Connection.writeCommand (/app/node_modules/mongodb/lib/cmap/connection.js:408:29)';
    const err = epipe(`Error: This socket has been ended by the other party\n${at}`);
    expect(classifyError(err)).toBeInstanceOf(ServiceUnavailableError);
  });

  it('an EPIPE from anywhere else is not', () => {
    const at = '    at afterWriteDispatched (node:internal/stream_base_commons:160:15)';
    expect(classifyError(epipe(`Error: write EPIPE\n${at}`))).toBeNull();
  });
});

describe('a bulk insert cut off by the database going away', () => {
  // As the driver builds it: the MongoNetworkError's message, no per-document write errors.
  const cut = Object.assign(new Error('connection 44 to 127.0.0.1:24631 closed'), {
    name: 'MongoBulkWriteError',
    writeErrors: [],
  });
  const duplicate = Object.assign(new Error('E11000 duplicate key'), {
    name: 'MongoBulkWriteError',
    code: 11000,
    writeErrors: [{ index: 0, code: 11000 }],
  });

  it('is the database being unavailable (503), but a document refused for itself is not', () => {
    expect(classifyError(cut)).toBeInstanceOf(ServiceUnavailableError);
    expect(classifyError(duplicate)).toBeNull();
  });
});
