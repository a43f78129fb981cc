/**
 * A fault-injection double at the disk store's file-system boundary (src/storage/disk-io.ts): it
 * passes every call to the real one, and can make the next upload's writing hang, and keeps a
 * log, in order, of the calls on objects and their directories (open, write, fdatasync, fsync),
 * each when it completed. Tests add their own lines (a metadata insert sent) to the same log.
 */
import path from 'node:path';
import { type DiskIo, nodeDiskIo } from '../../src/storage';

/** What a descriptor was opened on: an object (`object:<id>`) or an object directory (`dir:<xx>`). */
function describe(p: string): string {
  const base = path.basename(p);
  if (/^[0-9a-f]{32}$/.test(base)) return `object:${base}`;
  if (/^[0-9a-f]{2}$/.test(base) && path.basename(path.dirname(p)) === 'objects') return `dir:${base}`;
  return `other:${base}`;
}

export class DiskIoDouble implements DiskIo {
  /** `<call> <target>`, appended when the call completed (`fsync-start` when an fsync began). */
  readonly log: string[] = [];
  private readonly names = new Map<number, string>();
  private readonly hung = new Set<number>();
  private hangNext: { ms: number; entered: () => void } | undefined;
  private stalled = false;
  private fsyncs = 0;

  /**
   * Extra time every fsync and fdatasync of a file, and of a directory, takes: a sync the store
   * started but did not wait for then completes late.
   */
  syncDelayMs = { file: 0, dir: 0 };

  constructor(private readonly real: DiskIo = nodeDiskIo) {}

  private slowSync(fd: number): Promise<void> {
    const ms = this.name(fd).startsWith('dir:') ? this.syncDelayMs.dir : this.syncDelayMs.file;
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  }

  /** The next object opened for writing gets its first write held `ms`; resolves when it is held. */
  hangNextUpload(ms: number): Promise<void> {
    return new Promise((entered) => (this.hangNext = { ms, entered }));
  }

  /** Holds the first write of the hung upload (a stall of `ms`); its later writes go through. */
  private held(fd: number): Promise<void> {
    if (!this.hung.has(fd) || !this.hangNext || this.stalled) return Promise.resolve();
    this.stalled = true;
    const { ms, entered } = this.hangNext;
    entered();
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  private name(fd: number): string {
    return this.names.get(fd) ?? `fd:${fd}`;
  }

  async open(p: string, flags: string): Promise<number> {
    const fd = await this.real.open(p, flags);
    const name = describe(p);
    this.names.set(fd, name);
    this.hung.delete(fd);
    if (flags === 'wx' && this.hangNext && !this.hung.size) this.hung.add(fd);
    this.log.push(`open ${name}`);
    return fd;
  }

  async close(fd: number): Promise<void> {
    if (this.hung.delete(fd)) {
      this.hangNext = undefined;
      this.stalled = false;
    }
    return this.real.close(fd);
  }

  async write(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
    await this.held(fd);
    const n = await this.real.write(fd, buf, offset, length, position);
    this.log.push(`write ${this.name(fd)}`);
    return n;
  }

  async writev(fd: number, bufs: Buffer[], position: number): Promise<number> {
    await this.held(fd);
    const n = await this.real.writev(fd, bufs, position);
    this.log.push(`write ${this.name(fd)}`);
    return n;
  }

  read(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
    return this.real.read(fd, buf, offset, length, position);
  }

  /** Logs `fsync-start <target> #<n>` when it begins and `fsync <target> #<n>` when it completed. */
  async fsync(fd: number): Promise<void> {
    const n = ++this.fsyncs;
    this.log.push(`fsync-start ${this.name(fd)} #${n}`);
    await this.real.fsync(fd);
    await this.slowSync(fd);
    this.log.push(`fsync ${this.name(fd)} #${n}`);
  }

  async fdatasync(fd: number): Promise<void> {
    await this.real.fdatasync(fd);
    await this.slowSync(fd);
    this.log.push(`fdatasync ${this.name(fd)}`);
  }
}
