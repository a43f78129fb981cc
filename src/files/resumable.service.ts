/**
 * Resumable uploads (tus 1.0.0, docs/files-api.md §4.9): bytes arrive over several requests, on
 * any instance sharing the database and the store, and the last byte commits the file through
 * UploadService.commit, the same code path as a PUT /upload of the same bytes (names, collisions,
 * keys, expiry, durability). State lives in `resumable_uploads`; bytes in the store's partial objects;
 * one request writes at a time, under a lease in the database.
 */
import crypto from 'node:crypto';
import { Writable, finished, type Readable } from 'node:stream';
import {
  AppError,
  asUploadStorageError,
  ClientClosedRequestError,
  ConflictError,
  NotFoundError,
  ValidationError,
} from '../core/errors';
import type { PartialObjects, PartialWriter } from '../storage';
import type { FileWritesService, WriteCredentials } from './file-writes.service';
import { inlineSha256, type HashPool } from './hasher';
import type { FilesSettings } from './index';
import { SNIFF_WINDOW } from './mime';
import { fileTooLarge } from './receive';
import type { ResumableRecord, ResumableRepository } from './resumable.repository';
import { RunningHash, RunningHashes } from './running-hash';
import type { UploadSlot } from './upload-gate';
import type { UploadOptions, UploadResult, UploadService } from './upload.service';

type Logger = { warn(obj: unknown, msg?: string): void };

/** A request's write lease on an upload; renewed while the request runs. */
const LEASE_MS = 30_000;
const RENEW_MS = 10_000;
/** Bytes gathered before one write to the store (as receive.ts does for PUT). */
const GATHER_BYTES = 256 * 1024;

/** The options of PUT /upload a creation request gives (isServerPath is the door's, given again at the end). */
export type ResumableOptions = Omit<UploadOptions, 'isServerPath'>;

export interface ResumableState {
  offset: number;
  length: number;
  expiresAt: Date;
  metadata: string;
  finished: boolean;
}

export interface AppendRequest {
  token: string;
  offset: number;
  /** The body's declared size, when known. */
  declaredSize?: number;
  clientAddress: string;
  /** Settles when the exchange is over: the admission slot is held until then. */
  until: Promise<unknown>;
  body: Readable;
  /** Aborts with the door's reason (a body too slow). */
  signal?: AbortSignal;
  /** Upload-Checksum's sha256 digest (raw bytes), when given. */
  checksum?: Buffer;
  isServerPath?: (name: string) => boolean;
}

function idOf(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** AES-256-GCM under a key only the upload URL's holder has: the database alone reveals no key. */
function keyOf(token: string): Buffer {
  return crypto.createHash('sha256').update(`agora-resumable\0${token}`).digest();
}

function seal(token: string, value: unknown): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyOf(token), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

function unseal<T>(token: string, sealed: string): T {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyOf(token), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as T;
}

export function uploadNotFound(): NotFoundError {
  return new NotFoundError('Upload not found', 'UPLOAD_NOT_FOUND');
}

/** §4.9: the errors a door maps to tus statuses. */
export const offsetMismatch = () => new ConflictError('Upload-Offset does not match', 'UPLOAD_OFFSET_MISMATCH');
export const uploadLocked = () => new ConflictError('Upload locked by another request', 'UPLOAD_LOCKED');
export const uploadExpired = () => new NotFoundError('Upload expired', 'UPLOAD_EXPIRED');
export const checksumMismatch = () => new ValidationError('Checksum mismatch', 'CHECKSUM_MISMATCH');

export class ResumableService {
  private readonly running = new RunningHashes();

  constructor(
    private readonly repo: ResumableRepository,
    private readonly partials: PartialObjects,
    private readonly uploads: UploadService,
    private readonly writes: FileWritesService,
    private readonly settings: FilesSettings,
    private readonly log: Logger,
    private readonly hashes?: HashPool,
  ) {}

  /**
   * Creates an upload of `length` bytes: write access and the size limit as for PUT, counted once
   * by the rate limit. Returns the token of its URL.
   */
  async create(request: {
    credentials: WriteCredentials;
    clientAddress: string;
    length: number;
    metadata: string;
    options: ResumableOptions;
  }): Promise<{ token: string; state: ResumableState }> {
    await this.writes.authorize(request.credentials);
    if (request.length > this.settings.maxSize) throw fileTooLarge();
    if (request.length === 0) throw new ValidationError('Empty file', 'EMPTY_FILE');
    const slot = await this.uploads.admit(request.clientAddress);
    slot.release();
    const token = crypto.randomBytes(32).toString('base64url');
    const now = new Date();
    const record: ResumableRecord = {
      _id: idOf(token),
      objectId: this.partials.newId(),
      length: request.length,
      offset: 0,
      metadata: request.metadata,
      sealed: seal(token, request.options),
      result: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.settings.resumableExpiry * 1000),
      lockOwner: null,
      lockUntil: null,
    };
    await this.repo.insert(record);
    return { token, state: stateOf(record) };
  }

  private async live(token: string): Promise<ResumableRecord> {
    const record = await this.repo.find(idOf(token));
    if (!record) throw uploadNotFound();
    if (record.result === null && record.expiresAt.getTime() <= Date.now()) throw uploadExpired();
    return record;
  }

  /** HEAD: what is stored. */
  async status(token: string): Promise<ResumableState> {
    return stateOf(await this.live(token));
  }

  /** The finished upload's result (GET), or null while bytes are missing. */
  async result(token: string): Promise<UploadResult | null> {
    const record = await this.live(token);
    return record.result === null ? null : unseal<UploadResult>(token, record.result);
  }

  /**
   * PATCH: appends the body at `offset` (409 when it is not the stored offset, 423 while another
   * request writes). What arrives is kept, also when the body breaks off (the next HEAD tells);
   * the last byte commits the file. Resolves with the new state and, once finished, the result.
   */
  async append(request: AppendRequest): Promise<{ state: ResumableState; result?: UploadResult }> {
    const id = idOf(request.token);
    let record = await this.live(request.token);
    if (record.result !== null) {
      // Finished: an empty PATCH at the end is answered as done (a client retrying its last request).
      if (request.offset === record.length && !request.declaredSize) return { state: stateOf(record) };
      throw offsetMismatch();
    }
    // All bytes stored but not committed (the commit failed, say the database was away): a PATCH at
    // the end, empty, goes on to commit them.
    if (request.offset !== record.offset) throw offsetMismatch();
    const room = record.length - record.offset;
    if (request.declaredSize !== undefined && request.declaredSize > room) throw fileTooLarge();
    // The lease before the upload slot: a PATCH racing the upload's writer is told 423 (retry this
    // upload later), whatever the crowd at its address; only a writer takes a slot.
    const owner = crypto.randomBytes(12).toString('hex');
    const locked = await this.repo.lock(id, owner, new Date(), LEASE_MS);
    if (!locked) throw uploadLocked();
    record = locked;
    let slot: UploadSlot;
    try {
      slot = await this.uploads.admit(request.clientAddress, { counted: false });
    } catch (err) {
      await this.repo.unlock(id, owner).catch(() => {});
      throw err;
    }
    void request.until.then(
      () => slot.release(),
      () => slot.release(),
    );
    // Expired while this request waited for the lease: the sweep may be removing it.
    if (record.expiresAt.getTime() <= Date.now()) {
      await this.repo.unlock(id, owner).catch(() => {});
      throw uploadExpired();
    }
    const lost = new AbortController();
    const renewal = setInterval(() => {
      this.repo.renew(id, owner, new Date(), LEASE_MS).then(
        (held) => held || lost.abort(uploadLocked()),
        () => {},
      );
    }, RENEW_MS);
    renewal.unref();
    try {
      if (request.offset !== record.offset) throw offsetMismatch();
      const writer = await this.partials
        .openWriter(record.objectId, record.offset)
        .catch((err) => Promise.reject(asUploadStorageError(err)));
      const signals = [lost.signal, ...(request.signal ? [request.signal] : [])];
      let failure: unknown;
      const digest = request.checksum ? crypto.createHash('sha256') : undefined;
      let run = this.running.take(id, record.offset, () => this.startHash(record.length));
      try {
        const room = record.length - record.offset;
        await pump(request.body, writer, room, AbortSignal.any(signals), digest, (bufs) => run?.add(bufs));
      } catch (err) {
        // No room for the bytes: 507, as for PUT.
        failure = asUploadStorageError(err);
      }
      // What arrived is kept (tus: an interrupted PATCH keeps its bytes), unless its checksum fails.
      await writer.close().catch((err) => (failure ??= asUploadStorageError(err)));
      let written = writer.written;
      if (!failure && digest && !digest.digest().equals(request.checksum!)) {
        failure = checksumMismatch();
        written = 0;
      }
      const to = record.offset + written;
      // The running hash must have seen exactly the bytes recorded; otherwise the end reads them back.
      if (run && run.offset !== to) {
        run.abort();
        run = undefined;
      }
      if (written > 0 && !(await this.repo.advance(id, owner, record.offset, to))) {
        run?.abort();
        throw uploadLocked();
      }
      record.offset = to;
      if (run && to < record.length) this.running.keep(id, run);
      if (failure) throw failure;
      if (to < record.length) return { state: stateOf(record) };
      const result = await this.finish(request, record, owner, run);
      return { state: stateOf(record), result };
    } finally {
      clearInterval(renewal);
      await this.repo.unlock(id, owner).catch(() => {});
    }
  }

  /** The last byte arrived: hash the stored bytes and commit them as PUT /upload commits a body. */
  private async finish(
    request: AppendRequest,
    record: ResumableRecord,
    owner: string,
    run: RunningHash | undefined,
  ): Promise<UploadResult> {
    const { size, sha256, window } = run
      ? { size: run.offset, sha256: await run.digest(), window: run.window() }
      : await this.measure(record);
    const options = unseal<ResumableOptions>(request.token, record.sealed);
    const temp = this.partials.asTemp(record.objectId, record.length);
    let result: UploadResult;
    try {
      result = await this.uploads.commit(this.uploads.adopt(temp, size, sha256, window), {
        ...options,
        isServerPath: request.isServerPath,
      });
    } catch (err) {
      // Refused for good (a prohibited name, say): the bytes went with the refusal, and so does the upload.
      if (err instanceof AppError) await this.repo.remove(record._id, owner).catch(() => {});
      throw err;
    }
    await this.repo.finish(record._id, owner, seal(request.token, result));
    record.result = '';
    return result;
  }

  /** On hashing threads for a file longer than one batch (receive.ts decides alike). */
  private startHash(length: number) {
    return this.hashes && length > GATHER_BYTES ? this.hashes.start() : inlineSha256();
  }

  /** Size, SHA-256 and sniff window of a complete partial object, read back once. */
  private async measure(record: ResumableRecord): Promise<{ size: number; sha256: string; window: Buffer }> {
    const source = await this.partials.openRead(record.objectId, record.length);
    const hash = this.startHash(record.length);
    let size = 0;
    const head: Buffer[] = [];
    let headLength = 0;
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (headLength < SNIFF_WINDOW) {
          const part = Buffer.from(chunk.subarray(0, SNIFF_WINDOW - headLength));
          head.push(part);
          headLength += part.length;
        }
        await hash.update([chunk]);
      }
    } catch (err) {
      hash.abort();
      throw err;
    }
    if (size !== record.length) {
      hash.abort();
      throw new Error(`resumable upload ${record._id}: ${size} bytes stored of ${record.length}`);
    }
    return { size, sha256: await hash.digest(), window: Buffer.concat(head) };
  }

  /** DELETE (termination): the upload and its bytes go; a finished upload's file stays. */
  async terminate(token: string): Promise<void> {
    const id = idOf(token);
    const record = await this.repo.find(id);
    if (!record) throw uploadNotFound();
    const owner = crypto.randomBytes(12).toString('hex');
    const locked = await this.repo.lock(id, owner, new Date(), LEASE_MS);
    if (!locked) throw uploadLocked();
    // The bytes first: a failure between the two leaves a record (found again), never unowned bytes.
    if (locked.result === null) await this.partials.remove(locked.objectId);
    if (!(await this.repo.remove(id, owner))) throw uploadNotFound();
  }

  /** The sweeper: expired uploads and their bytes. Returns how many went. */
  async sweepExpired(): Promise<number> {
    let removed = 0;
    for (let round = 0; round < 100; round++) {
      const batch = await this.repo.findExpired(new Date(), 500);
      for (const record of batch) {
        // Under the upload's lease, as a writer (no request writes meanwhile), the bytes before the record.
        const owner = crypto.randomBytes(12).toString('hex');
        const locked = await this.repo.lock(record._id, owner, new Date(), LEASE_MS);
        if (!locked) continue;
        if (locked.result === null) await this.partials.remove(locked.objectId);
        if (await this.repo.remove(record._id, owner)) removed++;
      }
      if (batch.length < 500) break;
    }
    return removed;
  }
}

function stateOf(record: ResumableRecord): ResumableState {
  return {
    offset: record.offset,
    length: record.length,
    expiresAt: record.expiresAt,
    metadata: record.metadata,
    finished: record.result !== null,
  };
}

/**
 * Streams `source` into `writer`, at most `room` bytes (more: 413, the source left unread). Rejects
 * with the signal's reason when it aborts, ClientClosedRequestError when the body breaks off.
 */
function pump(
  source: Readable,
  writer: PartialWriter,
  room: number,
  signal: AbortSignal,
  digest?: crypto.Hash,
  /** Told of each batch as it is written (the running hash); a promise asks the stream to wait. */
  onBatch?: (bufs: Buffer[]) => Promise<void> | undefined,
): Promise<void> {
  let size = 0;
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  /** The store write in flight: a failure waits for it, so the writer is never closed under it. */
  let inflight: Promise<unknown> = Promise.resolve();
  const flush = (cb: (err?: Error | null) => void) => {
    const bufs = gathered;
    gathered = [];
    gatheredBytes = 0;
    if (bufs.length === 0) return cb();
    const write = Promise.all([writer.writev(bufs), onBatch?.(bufs)]);
    inflight = write.catch(() => {});
    write.then(() => cb(), cb);
  };
  const sink = new Writable({
    highWaterMark: GATHER_BYTES,
    write(chunk: Buffer, _enc, cb) {
      if (size + chunk.length > room) return cb(fileTooLarge());
      size += chunk.length;
      digest?.update(chunk);
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes < GATHER_BYTES) return cb();
      flush(cb);
    },
    final: flush,
  });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown, fromSource: boolean) => {
      if (settled) return;
      settled = true;
      source.unpipe(sink);
      source.pause();
      // What was gathered still goes to the store: the bytes that arrived are kept.
      const bufs = gathered;
      gathered = [];
      const keep = bufs.length > 0 && !(err instanceof AppError && err.status === 413);
      const kept = inflight.then(() => (keep ? Promise.all([writer.writev(bufs), onBatch?.(bufs)]) : undefined));
      sink.destroy();
      const reason =
        err instanceof AppError
          ? err
          : fromSource
            ? new ClientClosedRequestError('Client closed request', 'CLIENT_CLOSED')
            : err;
      kept.then(
        () => reject(reason),
        () => reject(reason),
      );
    };
    sink.on('error', (err) => fail(err, false));
    sink.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    finished(source, { writable: false }, (err) => {
      if (err) fail(err, true);
    });
    const onAbort = () => fail(signal.reason, false);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    sink.once('close', () => signal.removeEventListener('abort', onAbort));
    source.pipe(sink);
  });
}
