/**
 * Reading and deleting stored files (docs/files-api.md §6–9, §11): existence, expiry (an expired
 * file is deleted on access), access keys, delete keys, and opening the bytes.
 */
import type { Readable } from 'node:stream';
import { NotFoundError, UnauthenticatedError } from '../core/errors';
import type { ByteRange, ByteStore } from '../storage';
import { DiskStore, ObjectGoneError } from '../storage';
import { isExpired } from './expiry';
import type { FileRecord, FileRepository } from './file.repository';
import { isPossibleStoredName } from './filename';
import type { KeyChecks } from './key-checks';
import { verifySecret } from './keys';
import type { MetadataCache } from './metadata-cache';

type Logger = { warn(obj: unknown, msg?: string): void };

/** What a reader learns about a file. */
export type StoredFile = Readonly<FileRecord>;

/** Slices up to this size are read into memory in one go instead of streamed. */
const SMALL_READ = 64 * 1024;

export function fileNotFound(): NotFoundError {
  return new NotFoundError('File not found', 'FILE_NOT_FOUND');
}

export class FileService {
  constructor(
    private readonly repo: FileRepository,
    private readonly store: ByteStore,
    private readonly log: Logger,
    /** The limit on wrong keys, per client address and per file. */
    private readonly keyChecks: KeyChecks,
    /** Disk backend only (see MetadataCache). */
    private readonly cache?: MetadataCache,
  ) {}

  /**
   * The file under `filename` for a read with `accessKey` (undefined = none given). Throws
   * NotFoundError when unknown or expired (deleting the expired file), UnauthenticatedError
   * `Invalid access key` when the file is protected and the key is missing or wrong,
   * TooManyRequestsError when `clientAddress` or the file used up its wrong keys (key-checks.ts).
   */
  async findForRead(filename: string, accessKey: string | undefined, clientAddress: string): Promise<StoredFile> {
    const file = await this.findLive(filename);
    if (!file) throw fileNotFound();
    await this.checkAccess(file, accessKey, clientAddress);
    return file;
  }

  /**
   * Throws UnauthenticatedError `Invalid access key` unless the file is unprotected or `accessKey`
   * is its key; TooManyRequestsError when a key was given and `clientAddress` or the file used up
   * its wrong keys (key-checks.ts). A missing key costs nothing and is not counted.
   */
  async checkAccess(file: StoredFile, accessKey: string | undefined, clientAddress: string): Promise<void> {
    const hash = file.accessKeyHash;
    if (hash === null) return;
    if (!accessKey || !(await this.keyChecks.run(clientAddress, file.filename, () => verifySecret(accessKey, hash))))
      throw new UnauthenticatedError('Invalid access key', 'INVALID_ACCESS_KEY');
  }

  /**
   * The file under `filename` unless unknown or expired (an expired one is deleted); no key checks.
   * With `willOpen` the caller promises to open the bytes (openContent) before it answers: a cached
   * entry is then not checked against the disk first, since opening checks it anyway (an entry whose
   * object is gone is dropped there, ObjectGoneError, and the caller looks again).
   */
  async findLive(filename: string, options: { willOpen?: boolean } = {}): Promise<StoredFile | null> {
    if (!isPossibleStoredName(filename)) return null;
    const file = await this.lookup(filename, options.willOpen === true);
    if (!file) return null;
    if (isExpired(file.expiry, Date.now())) {
      await this.remove(file);
      return null;
    }
    return file;
  }

  /** Metadata by name: a cached entry while its object exists, else the database. */
  private async lookup(filename: string, willOpen: boolean): Promise<StoredFile | null> {
    if (!this.cache) return this.repo.findByName(filename);
    const cached = this.cache.get(filename);
    if (cached && (willOpen || (await this.store.exists(cached.objectId)))) return cached;
    const file = await this.repo.findByName(filename);
    if (file) this.cache.set(filename, file);
    else this.cache.delete(filename);
    return file;
  }

  /**
   * The bytes of `file` (or a range): a Buffer for small slices and cached objects on disk,
   * otherwise a stream. Throws ObjectGoneError when a concurrent overwrite or delete removed them;
   * the caller looks the file up again.
   */
  async openContent(file: StoredFile, range?: ByteRange): Promise<Readable | Buffer> {
    try {
      return await this.open(file, range);
    } catch (err) {
      // Its bytes are gone, so the cached entry (if it is this one) is stale: the next lookup asks the database.
      const stale = err instanceof ObjectGoneError && this.cache?.get(file.filename)?.objectId === file.objectId;
      if (stale) this.cache!.delete(file.filename);
      throw err;
    }
  }

  private async open(file: StoredFile, range?: ByteRange): Promise<Readable | Buffer> {
    if (!(this.store instanceof DiskStore)) return this.store.openRead(file.objectId, range);
    const start = range?.start ?? 0;
    const end = range ? range.end : file.size - 1;
    // A small object read before is served from memory (objects never change); see object-cache.ts.
    const whole = await this.store.readCached(file.objectId, file.size);
    if (whole) return range ? whole.subarray(start, end + 1) : whole;
    if (end - start + 1 <= SMALL_READ) return this.store.readSmall(file.objectId, end - start + 1, start);
    // The end is known: the reader stops there instead of reading once more to find the end of file.
    return this.store.openRead(file.objectId, { start, end });
  }

  /**
   * Deletes `filename` when `deleteKey` is its delete key (§6). Expired files can be deleted too.
   * Throws NotFoundError when there is no such file, UnauthenticatedError `Invalid delete key`,
   * TooManyRequestsError when `clientAddress` or the file used up its wrong keys (key-checks.ts).
   */
  async delete(filename: string, deleteKey: string | undefined, clientAddress: string): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const file = isPossibleStoredName(filename) ? await this.repo.findByName(filename) : null;
      if (!file) throw fileNotFound();
      const hash = file.deleteKeyHash;
      if (!deleteKey || !(await this.keyChecks.run(clientAddress, filename, () => verifySecret(deleteKey, hash)))) {
        throw new UnauthenticatedError('Invalid delete key', 'INVALID_DELETE_KEY');
      }
      if (await this.repo.deleteIfUnchanged(file._id, file.objectId)) {
        this.cache?.delete(filename);
        await this.store
          .release(file.objectId)
          .catch((err) => this.log.warn({ err }, 'could not release deleted bytes'));
        return;
      }
      // Overwritten meanwhile: judge the key against the new version.
    }
    throw new Error(`could not delete ${filename}: it keeps changing`);
  }

  /** Deletes `file` if it is still this version (a concurrent overwrite wins). */
  async remove(file: StoredFile): Promise<boolean> {
    if (!(await this.repo.deleteIfUnchanged(file._id, file.objectId))) return false;
    this.cache?.delete(file.filename);
    await this.store.release(file.objectId).catch((err) => this.log.warn({ err }, 'could not release expired bytes'));
    return true;
  }
}
