/**
 * The byte store behind file sharing: immutable objects under internal identifiers, written once
 * through a temporary object and read by range. Two backends implement it: local disk and GridFS.
 */
import type { Readable } from 'node:stream';

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The object was removed between looking up its metadata and opening it (a concurrent overwrite). */
export class ObjectGoneError extends Error {
  constructor(readonly id: string) {
    super(`stored object ${id} no longer exists`);
    this.name = 'ObjectGoneError';
  }
}

/** Bytes being written. Nothing refers to them until `commit` made them durable. */
export interface TempObject {
  readonly id: string;
  /** Appends bytes; resolves when the store accepted them (backpressure). */
  write(chunk: Buffer): Promise<void>;
  /** Appends several chunks in order, as one write where the store can (optional). */
  writev?(chunks: Buffer[]): Promise<void>;
  /** Makes the bytes complete and durable; afterwards `openRead(id)` serves them. */
  commit(): Promise<void>;
  /** Called once metadata refers to the object: drops the crash-recovery marker. */
  settle(): Promise<void>;
  /** Removes the bytes, committed or not (idempotent). */
  abort(): Promise<void>;
}

/**
 * A partial object: the bytes of a resumable upload (docs/files-api.md §4.9), written over several
 * requests, perhaps by several instances sharing the store. Not an object until `asTemp().commit()`.
 */
export interface PartialWriter {
  /** Appends chunks in order at the current end. */
  writev(chunks: Buffer[]): Promise<void>;
  /** Bytes written through this writer. */
  readonly written: number;
  /** Makes every byte written so far durable and lets go of the object (also after a failed write). */
  close(): Promise<void>;
}

export interface PartialObjects {
  /** A new id for a partial object (nothing is stored until the first write). */
  newId(): string;
  /**
   * Opens the partial object `id` for writing at `offset` (created when absent and offset is 0);
   * bytes a writer left after `offset` (never recorded) are dropped.
   */
  openWriter(id: string, offset: number): Promise<PartialWriter>;
  /** Reads the first `length` bytes of a partial object (hashing before it is committed). */
  openRead(id: string, length: number): Promise<Readable>;
  /** The complete partial object as a temporary object: `commit` makes it an ordinary object. */
  asTemp(id: string, length: number): TempObject;
  /** Removes a partial object (idempotent). */
  remove(id: string): Promise<void>;
}

/** Answers which of the given object ids metadata still refers to. */
export type ReferenceCheck = (ids: string[]) => Promise<Set<string>>;

export interface ByteStore {
  readonly kind: 'disk' | 'gridfs';
  /** Resumable uploads' bytes, kept apart from objects until they are complete. */
  readonly partials: PartialObjects;
  /** Opens a new temporary object. */
  create(): Promise<TempObject>;
  /**
   * Opens committed bytes (all, or `range`) for reading. Throws ObjectGoneError when the object
   * does not exist (any more).
   */
  openRead(id: string, range?: ByteRange): Promise<Readable>;
  /** Whether a committed object exists (cheap on disk: one syscall). */
  exists(id: string): Promise<boolean>;
  /**
   * Gives up an object that metadata no longer refers to. Readers that already opened it finish
   * (disk: unlinked, open handles keep reading; GridFS: removed by `collect` after the grace period).
   */
  release(id: string): Promise<void>;
  /**
   * Start-up recovery: removes the temporary objects of uploads that died with their process
   * (this host's dead processes at once, any other after the grace period). Returns how many.
   */
  recover(isReferenced: ReferenceCheck): Promise<number>;
  /**
   * Removes released objects and stale temporary objects older than the grace period, and with
   * `full`, every object no metadata refers to that is older than the grace period. Safe to run on
   * several instances at once. Returns how many objects were removed.
   */
  collect(isReferenced: ReferenceCheck, options: { full: boolean }): Promise<number>;
}

/**
 * How long an unreferenced object may be in use by an upload in flight or a reader
 * (docs/files-api.md §13: ≥ 1 h).
 */
export const GRACE_PERIOD_MS = 60 * 60 * 1000;
