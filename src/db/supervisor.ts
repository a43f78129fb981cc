/**
 * Keeps the embedded database of this DATA_DIR running while the server runs: notices within a
 * quarter second that its process is gone (or that its owner is, so it is adopted), and relaunches
 * it through the launcher — same binary, data, lock, record and port — with backoff (0.5 s
 * doubling to 30 s). A relaunch that keeps the port needs nothing from the app: the driver
 * reconnects by itself. Never used with MONGODB_URI: an operator's database is the operator's.
 */
import { isAlive } from '../core/process';
import type { EnsureOutcome, LaunchedDatabase } from './launcher';

export interface SupervisorLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface SupervisorOptions {
  log: SupervisorLog;
  /** How often the database and its owner are checked. */
  pollMs?: number;
  /** Wait before the first relaunch; doubles after each relaunch that failed or died young. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** After this many failed relaunches in a row, /readyz says so. */
export const FAILURES_REPORTED = 5;
/** A relaunched database that dies sooner than this did not recover: the backoff keeps growing. */
const STABLE_MS = 10_000;

type Supervisable = LaunchedDatabase & { ensure(): Promise<EnsureOutcome>; pid: number };

export class DatabaseSupervisor {
  private readonly pollMs: number;
  private readonly firstDelayMs: number;
  private readonly maxDelayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private recovering: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  /** Set while the database is gone: since when, and the pid that exited. */
  private down: { since: number; pid: number } | undefined;
  private failures = 0;
  private lastError = '';
  private delayMs: number;
  private upSince = Date.now();

  private constructor(
    private readonly db: Supervisable,
    private readonly opts: SupervisorOptions,
  ) {
    this.pollMs = opts.pollMs ?? 250;
    this.firstDelayMs = opts.firstDelayMs ?? 500;
    this.maxDelayMs = opts.maxDelayMs ?? 30_000;
    this.delayMs = this.firstDelayMs;
  }

  /** A supervisor for a launched embedded database, or undefined when there is nothing to look after. */
  static for(db: LaunchedDatabase, opts: SupervisorOptions): DatabaseSupervisor | undefined {
    if (!db.ensure || db.pid === undefined) return undefined;
    return new DatabaseSupervisor(db as Supervisable, opts);
  }

  start(): void {
    this.timer = setInterval(() => this.check(), this.pollMs);
    this.timer.unref();
  }

  /** Why the database is unavailable, while it is gone; undefined otherwise. */
  outage(): string | undefined {
    if (!this.down) return undefined;
    const seconds = ((Date.now() - this.down.since) / 1000).toFixed(1);
    if (this.failures >= FAILURES_REPORTED) {
      return (
        `the embedded database exited ${seconds} s ago and ${this.failures} relaunches in a row failed ` +
        `(last: ${this.lastError}); still retrying every ${Math.round(this.delayMs / 1000)} s`
      );
    }
    return `the embedded database (pid ${this.down.pid}) exited ${seconds} s ago and is being relaunched`;
  }

  /** Stops watching; waits for a relaunch in progress, so the caller can then stop what it started. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.wake?.();
    await this.recovering;
  }

  private check(): void {
    if (this.recovering || this.stopped) return;
    const gone = !isAlive(this.db.pid);
    const ownerless = !this.db.owned && (this.db.ownerPid === undefined || !isAlive(this.db.ownerPid));
    if (!gone && !ownerless) return;
    this.recovering = this.recover(gone).finally(() => {
      this.recovering = undefined;
    });
  }

  private async recover(gone: boolean): Promise<void> {
    const log = this.opts.log;
    if (gone) {
      this.down = { since: Date.now(), pid: this.db.pid };
      // A database that died soon after its last relaunch did not recover: keep backing off.
      if (Date.now() - this.upSince >= STABLE_MS) this.delayMs = this.firstDelayMs;
      log.warn(`the database process ${this.db.pid} exited unexpectedly; relaunching it in ${this.delayMs / 1000} s`);
    }
    for (let attempt = 1; !this.stopped; attempt++) {
      if (gone) {
        await this.sleep(this.delayMs);
        if (this.stopped) return;
        log.info(`relaunching the database (attempt ${attempt})`);
      }
      const before = this.db.pid;
      try {
        const outcome = await this.db.ensure();
        const { pid, uri, ownerPid } = this.db;
        if (outcome === 'launched') log.info(`the database is back: pid ${pid} on ${uri} (attempt ${attempt})`);
        else if (outcome === 'adopted') log.info(`took over the database (pid ${pid}): its owner is gone`);
        else if (pid !== before) log.info(`the database was relaunched by process ${ownerPid}: pid ${pid}`);
        if (outcome === 'launched' || this.db.pid !== before) this.upSince = Date.now();
        this.failures = 0;
        this.down = undefined;
        if (gone) this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
        return;
      } catch (err) {
        this.failures++;
        this.lastError = (err as Error).message.split('\n')[0]!;
        gone = true;
        this.down ??= { since: Date.now(), pid: before };
        this.delayMs = Math.min(this.delayMs * 2, this.maxDelayMs);
        log.error(
          `relaunching the database failed (attempt ${attempt}, ${this.failures} in a row): ${this.lastError}; ` +
            `next try in ${this.delayMs / 1000} s`,
        );
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
