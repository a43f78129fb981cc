/**
 * Background upkeep, safe on every instance at once (conditional deletes only): expired files,
 * temporary bytes of crashed uploads, released and orphaned byte objects.
 */
import type { ByteStore } from '../storage';
import type { FileRepository } from './file.repository';
import type { FileService } from './file.service';
import type { ResumableService } from './resumable.service';

type Logger = { info(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };

export class FileMaintenance {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly repo: FileRepository,
    private readonly files: FileService,
    private readonly store: ByteStore,
    private readonly log: Logger,
    /** Unfinished resumable uploads past their expiry go with their bytes in the same sweep. */
    private readonly resumable?: ResumableService,
  ) {}

  private readonly isReferenced = (ids: string[]) => this.repo.referencedObjects(ids);

  /** Deletes every expired file (bytes and metadata); returns how many. */
  async sweepExpired(): Promise<number> {
    let deleted = 0;
    for (let round = 0; round < 10000; round++) {
      const batch = await this.repo.findExpired(Math.floor(Date.now() / 1000), 500);
      let progressed = 0;
      for (const file of batch) if (await this.files.remove(file)) progressed++;
      deleted += progressed;
      if (batch.length < 500 || progressed === 0) break;
    }
    return deleted;
  }

  /** Start-up: removes temporary bytes left by crashed uploads. */
  recover(): Promise<number> {
    return this.store.recover(this.isReferenced);
  }

  /** Removes released and stale objects; `full` also scans for orphans. */
  collect(full: boolean): Promise<number> {
    return this.store.collect(this.isReferenced, { full });
  }

  /** Start-up recovery, then (interval > 0) a sweep now and every `intervalSeconds`. */
  async start(intervalSeconds: number): Promise<void> {
    try {
      const recovered = await this.recover();
      if (recovered > 0) this.log.info({ recovered }, 'removed temporary bytes of interrupted uploads');
    } catch (err) {
      this.log.error({ err }, 'start-up recovery of interrupted uploads failed');
    }
    if (intervalSeconds <= 0) return;
    this.running = this.pass(true);
    await this.running;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.pass(false).finally(() => (this.running = undefined));
    }, intervalSeconds * 1000);
    this.timer.unref();
    this.running = undefined;
  }

  private async pass(full: boolean): Promise<void> {
    try {
      const expired = await this.sweepExpired();
      const resumable = (await this.resumable?.sweepExpired()) ?? 0;
      const objects = await this.collect(full);
      if (expired + resumable + objects > 0) this.log.info({ expired, resumable, objects }, 'files sweep');
    } catch (err) {
      this.log.error({ err }, 'files sweep failed');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }
}
