/**
 * The disk store's record of the uploads in flight, for start-up recovery: which objects a killed
 * process may have left half-written. One marker file per upload (create, then unlink) cost each
 * upload an inode allocation and two directory changes in one shared directory; on ext4 an
 * allocation scans past every recently freed inode of its group, so that churn made the marker
 * the upload's most expensive syscall (ext4_create, in perf under bench/files.js). Instead, an
 * upload appends its object id to a journal file of its process:
 *
 *   tmp/<host>-<pid>-<random>.journal   one line `<object id>\n` per upload begun
 *
 * A journal exists only while uploads come: it is created for the first and removed once its last
 * one ended (settled or aborted) and no other began for JOURNAL_IDLE_MS, so an idle store's tmp/
 * is empty. Uploads one after another (a client sending a list of files) share one journal instead
 * of creating and removing a file each (an inode allocation and two directory changes per upload
 * again). Lines of ended uploads stay until then: recovery keeps every object metadata refers
 * to, so such a line costs a crash's recovery one lookup and nothing else. After
 * JOURNAL_MAX_ENTRIES lines the next upload starts a new journal, which bounds the work of a
 * recovery. Lines are appended (O_APPEND), never rewritten; a killed process leaves at worst a
 * partial last line, whose object was never created (the line is written first).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Uploads one journal file lists before the next upload starts a new one. */
export const JOURNAL_MAX_ENTRIES = 1024;

/** How long a journal whose uploads all ended waits for the next upload before it is removed. */
export const JOURNAL_IDLE_MS = 1000;

export const JOURNAL_RE = /^([0-9a-f]{8})-(\d+)-([0-9a-f]{32})\.journal$/;

const ID_LINE_RE = /^[0-9a-f]{32}$/;

interface JournalFile {
  readonly path: string;
  readonly fd: number;
  /** Lines written (or being written). */
  lines: number;
  /** Uploads listed here that have not ended. */
  pending: number;
  /** Set while no upload of this (current) journal is in flight: removes it when it fires. */
  idle?: NodeJS.Timeout;
}

/** An upload's place in a journal: end() once it no longer needs recovery (idempotent). */
export interface JournalEntry {
  end(): Promise<void>;
}

/**
 * Appends a line (O_APPEND: lines of concurrent uploads never interleave), on libuv's thread pool
 * like every other file-system call of the store: a few bytes into the page cache, never synced.
 */
function append(fd: number, line: string): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.write(fd, line, null, 'latin1', (err, n) => {
      if (err) return reject(err);
      if (n !== line.length)
        return reject(new Error(`short write to the upload journal (${n} of ${line.length} bytes)`));
      resolve();
    }),
  );
}

export class UploadJournal {
  private current: JournalFile | undefined;
  private opening: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    /** `<host>-<pid>`: whose journals these are (recovery judges a journal's process by it). */
    private readonly owner: string,
    private readonly maxEntries = JOURNAL_MAX_ENTRIES,
    private readonly idleMs = JOURNAL_IDLE_MS,
  ) {}

  /** Records that object `id` is about to be written; resolves once the line is written. */
  async begin(id: string): Promise<JournalEntry> {
    let file: JournalFile;
    for (;;) {
      const c = this.current;
      // The check and the reservation below run without an await between them, so an end()
      // elsewhere cannot remove the file this upload is about to write to.
      if (c && c.lines < this.maxEntries) {
        file = c;
        break;
      }
      if (c) {
        // Full: retired, removed when its last upload ends (at once when none is in flight).
        this.current = undefined;
        if (c.pending === 0) {
          clearTimeout(c.idle);
          this.remove(c).catch(() => {});
        }
      }
      this.opening ??= this.open().finally(() => (this.opening = undefined));
      await this.opening;
    }
    file.lines++;
    file.pending++;
    clearTimeout(file.idle);
    file.idle = undefined;
    let ended = false;
    const entry: JournalEntry = {
      end: () => {
        if (ended) return Promise.resolve();
        ended = true;
        return this.release(file);
      },
    };
    try {
      await append(file.fd, `${id}\n`);
    } catch (err) {
      await entry.end().catch(() => {});
      throw err;
    }
    return entry;
  }

  private async open(): Promise<void> {
    const p = path.join(this.dir, `${this.owner}-${crypto.randomBytes(16).toString('hex')}.journal`);
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(p, 'ax', (err, f) => (err ? reject(err) : resolve(f))),
    );
    this.current = { path: p, fd, lines: 0, pending: 0 };
  }

  /**
   * One upload of `file` ended. A retired (full) journal goes once none of its uploads is in flight;
   * the current one after idleMs without a new upload.
   */
  private async release(file: JournalFile): Promise<void> {
    file.pending--;
    if (file.pending > 0) return;
    if (this.current !== file) return this.remove(file);
    // An upload that begins meanwhile clears this timer (begin), and so does retiring the journal.
    file.idle = setTimeout(() => {
      this.current = undefined;
      this.remove(file).catch(() => {});
    }, this.idleMs);
    file.idle.unref();
  }

  private async remove(file: JournalFile): Promise<void> {
    try {
      await fs.promises.unlink(file.path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    } finally {
      await new Promise<void>((resolve) => fs.close(file.fd, () => resolve()));
    }
  }
}

/** The object ids a journal lists (a partial last line is skipped: its object was never created). */
export async function readJournal(p: string): Promise<string[]> {
  const text = await fs.promises.readFile(p, 'latin1');
  return text.split('\n').filter((line) => ID_LINE_RE.test(line));
}
