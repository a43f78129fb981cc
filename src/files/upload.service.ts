/**
 * Uploads (docs/files-api.md §4): receive the bytes in one pass, then name, key and commit them.
 * Metadata is written only after the bytes are durable; a name is claimed through the unique
 * index, so concurrent uploads never share a name; an overwrite switches the bytes atomically.
 */
import type { Readable } from 'node:stream';
import type { FilesConfig } from '../config';
import { AppError, asUploadStorageError, ValidationError } from '../core/errors';
import type { ByteStore, TempObject } from '../storage';
import { computeExpiry } from './expiry';
import type { FileContent, FileRepository } from './file.repository';
import { computeName, isReservedName, joinName, MAX_FILENAME_LENGTH, nextBare } from './filename';
import { hashGeneratedSecret, hashSecret, randomDeleteKey, verifySecret } from './keys';
import type { MetadataCache } from './metadata-cache';
import { Detected, detectMime } from './mime';
import type { HashPool } from './hasher';
import { streamInto } from './receive';
import type { UploadGate, UploadSlot } from './upload-gate';

type Logger = { warn(obj: unknown, msg?: string): void };

/** Bytes received and kept in a temporary object, not yet visible under any name. */
export interface ReceivedUpload {
  readonly size: number;
  readonly sha256: string;
  readonly detected: Detected;
  /** Removes the bytes; for an upload that will not be committed. */
  discard(): Promise<void>;
}

export interface UploadOptions {
  /** The requested name (§4.5 input), '' when none. */
  requestedName: string;
  randomize: boolean;
  /** Non-empty, or undefined when not given. */
  deleteKey?: string;
  /** Non-empty, or undefined when not given. */
  accessKey?: string;
  /** The raw expiry value (header or form field), undefined when absent. */
  expiry?: string;
  /** Names the server's other routes use (beyond the fixed reserved list). */
  isServerPath?: (name: string) => boolean;
}

export interface UploadResult {
  filename: string;
  deleteKey: string;
  /** '' when the file is not protected. */
  accessKey: string;
  /** Unix seconds; 0 = never. */
  expiry: number;
  size: number;
  mimetype: string;
  sha256: string;
  overwritten: boolean;
}

/** The internals behind a ReceivedUpload handed out by this service. */
class Received implements ReceivedUpload {
  constructor(
    readonly temp: TempObject,
    readonly size: number,
    readonly sha256: string,
    readonly detected: Detected,
  ) {}

  discard(): Promise<void> {
    return this.temp.abort().catch(() => {});
  }
}

const MAX_CLAIM_ATTEMPTS = 10000;

/** What commit() knows of an overwrite in flight (resolveLater). */
interface Replacing {
  objectId?: string;
}
/** The longest wait between two looks at an upload whose metadata write may have landed. */
const MAX_RECHECK_MS = 5 * 60_000;
/** Names after a taken one looked up in one query (§4.6). */
const NAMES_PER_LOOKUP = 64;

function prohibited(): ValidationError {
  return new ValidationError('Prohibited filename', 'PROHIBITED_FILENAME');
}

function checkLength(name: string): void {
  if (name.length > MAX_FILENAME_LENGTH) throw new ValidationError('Filename too long', 'FILENAME_TOO_LONG');
}

export class UploadService {
  constructor(
    private readonly repo: FileRepository,
    private readonly store: ByteStore,
    private readonly config: FilesConfig,
    private readonly gate: UploadGate,
    private readonly log: Logger,
    /** Disk backend only: entries of names this service changes are dropped. */
    private readonly cache?: MetadataCache,
    private readonly hashes?: HashPool,
  ) {}

  /**
   * How long after a metadata write of unknown outcome its bytes are looked at (doubling while the
   * database cannot answer; tests shorten it).
   */
  recheckAfterMs = 10_000;

  /**
   * Admits one upload from `clientAddress` before its body is read (upload-gate.ts): throws
   * TooManyRequestsError when this process receives too many uploads at once or the address used
   * up its uploads within the window. Release the slot when the upload ended, however it ended.
   */
  admit(clientAddress: string, options?: { counted?: boolean }): Promise<UploadSlot> {
    return this.gate.admit(clientAddress, options);
  }

  /** Uploads admitted and not yet released in this process. */
  get inProgress(): number {
    return this.gate.inProgress;
  }

  /**
   * Streams an upload into a temporary object, computing size, SHA-256 and MIME type on the way.
   * Throws PayloadTooLargeError over FILES_MAX_SIZE, ValidationError `Empty file` for 0 bytes and
   * ClientClosedRequestError when the source ends prematurely, the reason of `signal` when it aborts
   * (a body too slow: RequestTimeoutError); nothing is kept in those cases.
   */
  async receive(source: Readable, signal?: AbortSignal): Promise<ReceivedUpload> {
    const temp = await this.store.create().catch((err) => Promise.reject(asUploadStorageError(err)));
    try {
      const digest = await streamInto(source, temp, this.config.maxSize, this.hashes, signal);
      if (digest.size === 0) throw new ValidationError('Empty file', 'EMPTY_FILE');
      return new Received(temp, digest.size, digest.sha256, detectMime(digest.window));
    } catch (err) {
      await temp.abort().catch((e) => this.log.warn({ err: e }, 'could not remove a failed upload'));
      // No room for the bytes (disk, or GridFS's database): 507, never a 500.
      throw asUploadStorageError(err);
    }
  }

  /**
   * Bytes received elsewhere, complete and measured (a resumable upload's, resumable.service.ts):
   * committed by commit() exactly as a received body.
   */
  adopt(temp: TempObject, size: number, sha256: string, window: Buffer): ReceivedUpload {
    if (size === 0) throw new ValidationError('Empty file', 'EMPTY_FILE');
    return new Received(temp, size, sha256, detectMime(window));
  }

  /**
   * Names the received bytes and makes them visible: a new file, or an overwrite when the name is
   * taken and `deleteKey` matches. Discards the bytes on any failure of known outcome (400 name errors
   * included); after a metadata write of unknown outcome, once metadata shows it did not land.
   */
  async commit(received: ReceivedUpload, options: UploadOptions): Promise<UploadResult> {
    if (!(received instanceof Received)) throw new Error('commit() needs an upload from receive()');
    let claimed: { filename: string; overwritten: boolean } | undefined;
    let writing = false;
    // The object an overwrite is switching away from, while that switch's outcome is unknown.
    const replacing: Replacing = {};
    try {
      const reserved = (name: string) => isReservedName(name) || (options.isServerPath?.(name) ?? false);
      const { name, bare, ext, random } = computeName(
        options.requestedName,
        options.randomize,
        received.detected.ext,
        reserved,
      );
      const drawRandom = () => computeName('', true, ext, reserved).name;
      // With forced random names the requested one is never stored (only an overwrite may use it,
      // and a name that long cannot exist): the reserved and length rules apply to the drawn name.
      if (!this.config.forceRandomFilename && reserved(name)) throw prohibited();
      if (!this.config.forceRandomFilename) checkLength(name);

      // §4.7: a key the client chose may be weak (salted scrypt); a generated one cannot be (SHA-256).
      const deleteKey = options.deleteKey || randomDeleteKey();
      const [deleteKeyHash, accessKeyHash] = await Promise.all([
        options.deleteKey ? hashSecret(deleteKey) : hashGeneratedSecret(deleteKey),
        options.accessKey ? hashSecret(options.accessKey) : null,
      ]);
      const expiry = computeExpiry(options.expiry, this.config.maxExpiry, Date.now() / 1000);

      await received.temp.commit();
      const content: FileContent = {
        objectId: received.temp.id,
        size: received.size,
        sha256: received.sha256,
        mimetype: received.detected.mimetype,
        expiry,
        deleteKeyHash,
        accessKeyHash,
        committedAt: new Date(),
      };
      writing = true;
      claimed = await this.claim(name, bare, ext, random, drawRandom, options.deleteKey, content, replacing);
      // The record just written, as the database holds it: the first download of a new file (the
      // common case) then needs no database round trip. Valid while its object exists (see cache).
      this.cache?.set(claimed.filename, { _id: claimed.filename, filename: claimed.filename, ...content });
      await received.temp
        .settle()
        .catch((err) => this.log.warn({ err }, 'could not clear the recovery marker of an upload'));
      return {
        filename: claimed.filename,
        deleteKey,
        accessKey: options.accessKey ?? '',
        expiry,
        size: received.size,
        mimetype: received.detected.mimetype,
        sha256: received.sha256,
        overwritten: claimed.overwritten,
      };
    } catch (err) {
      // Once metadata refers to the bytes they are the file's: never remove them here. A metadata
      // write that failed other than by our own refusal (the database killed or unreachable before
      // it replied, its journal sync failing after the commit) may have landed all the same: the
      // bytes then stay, with their recovery marker, until metadata says whether they are a file's.
      if (!claimed && writing && !(err instanceof AppError)) {
        this.resolveLater(received.temp, replacing.objectId, this.recheckAfterMs);
      } else if (!claimed) await received.discard();
      // No room for the bytes' fsync or the metadata: the upload was not stored (507).
      throw asUploadStorageError(err);
    }
  }

  /**
   * The bytes of an upload whose metadata write had no known outcome: kept (settled) if metadata
   * refers to them after `delayMs`, removed if not; looked at again, twice as late, while the
   * database cannot answer. A process that ends first leaves the recovery marker to the next start's
   * recovery, which decides the same way.
   *
   * `replaced`, for an overwrite, is the object the file held before: released once no file refers
   * to it (the switch landed, or the file changed or went since), as a known overwrite releases it
   * at once. Without this its bytes stayed until the next start's full collection.
   */
  private resolveLater(temp: TempObject, replaced: string | undefined, delayMs: number): void {
    const timer = setTimeout(() => {
      const ids = replaced ? [temp.id, replaced] : [temp.id];
      this.repo
        .referencedObjects(ids)
        .then(async (referenced) => {
          await (referenced.has(temp.id) ? temp.settle() : temp.abort());
          if (replaced && !referenced.has(replaced)) await this.store.release(replaced);
        })
        .catch((err) => {
          this.log.warn({ err, objectId: temp.id }, 'could not tell yet whether an upload was stored');
          this.resolveLater(temp, replaced, Math.min(delayMs * 2, MAX_RECHECK_MS));
        });
    }, delayMs);
    timer.unref();
  }

  /**
   * §4.6: overwrite the computed name when it is taken and the delete key matches; otherwise the
   * next free name (random under FILES_FORCE_RANDOM_FILENAME or for random names).
   */
  private async claim(
    name: string,
    bare: string,
    ext: string,
    random: boolean,
    drawRandom: () => string,
    deleteKey: string | undefined,
    content: FileContent,
    replacing: Replacing,
  ): Promise<{ filename: string; overwritten: boolean }> {
    if (this.config.forceRandomFilename) {
      if (deleteKey && (await this.tryOverwrite(name, deleteKey, content, replacing)) === 'done')
        return { filename: name, overwritten: true };
      for (let i = 0; i < MAX_CLAIM_ATTEMPTS; i++) {
        const candidate = drawRandom();
        checkLength(candidate);
        if (await this.repo.insert(candidate, content)) return { filename: candidate, overwritten: false };
      }
      throw new Error('could not find a free random name');
    }
    let candidate = name;
    let first = true;
    for (let i = 0; i < MAX_CLAIM_ATTEMPTS; i++) {
      checkLength(candidate);
      if (await this.repo.insert(candidate, content)) return { filename: candidate, overwritten: false };
      if (first && deleteKey) {
        const outcome = await this.tryOverwrite(candidate, deleteKey, content, replacing);
        if (outcome === 'done') return { filename: candidate, overwritten: true };
        if (outcome === 'vanished') continue; // freed meanwhile: claim it
      }
      first = false;
      if (random) candidate = drawRandom();
      else {
        // The name after the first taken one is tried at once (most collisions end there); from the
        // second on, the following names are looked up in one query.
        bare = i === 0 ? nextBare(bare) : await this.nextFreeBare(bare, ext);
        candidate = joinName(bare, ext);
      }
    }
    throw new Error(`could not find a free name for ${name}`);
  }

  /**
   * §4.6's next name after `bare` that no file holds, looked up NAMES_PER_LOOKUP names per query:
   * a name uploaded 800 times took 800 failed inserts (~0.5 s) per upload, one name at a time. When
   * all of them are taken, the last one: the caller's insert fails and it looks on from there. A
   * name found free can still be claimed by a concurrent upload first: the insert tells.
   */
  private async nextFreeBare(bare: string, ext: string): Promise<string> {
    const bares: string[] = [];
    for (let b = bare; bares.length < NAMES_PER_LOOKUP;) bares.push((b = nextBare(b)));
    const names = bares.map((b) => joinName(b, ext));
    const taken = await this.repo.takenOf(names);
    const free = names.findIndex((n) => !taken.has(n));
    return bares[free < 0 ? bares.length - 1 : free]!;
  }

  /** Switches `name` to `content` if `deleteKey` matches its key; retries when it changed meanwhile. */
  private async tryOverwrite(
    name: string,
    deleteKey: string,
    content: FileContent,
    replacing: Replacing,
  ): Promise<'done' | 'mismatch' | 'vanished'> {
    for (let i = 0; i < MAX_CLAIM_ATTEMPTS; i++) {
      const existing = await this.repo.findByName(name);
      if (!existing) return 'vanished';
      if (!(await verifySecret(deleteKey, existing.deleteKeyHash))) return 'mismatch';
      replacing.objectId = existing.objectId;
      const switched = await this.repo.replaceContent(existing._id, existing.objectId, content);
      replacing.objectId = undefined;
      if (switched) {
        await this.store
          .release(existing.objectId)
          .catch((err) => this.log.warn({ err }, 'could not release overwritten bytes'));
        return 'done';
      }
    }
    throw new Error(`could not overwrite ${name}: it keeps changing`);
  }
}
