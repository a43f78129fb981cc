/**
 * One MongoDB connection (mongoose) for one app instance, with its commands counted in the metrics
 * (command-meter.ts) so round trips per request can be counted.
 */
import mongoose, { Connection, Model, Schema, type mongo } from 'mongoose';
import { isNoSpaceError } from '../core/errors';
import { Metrics } from '../metrics';
import { meterCommands } from './command-meter';

/**
 * The driver's collection of a model, typed with its documents, for writes already in their stored
 * form: the hot writes (a vote, a comment post, the live events' counter) go through it, skipping
 * mongoose's casting (the commands are the same; bench/api.js, server CPU per write).
 * Reads of whole documents go through src/discussion/whole-read.ts.
 */
export function collectionOf<T extends mongo.Document>(model: Model<T>): mongo.Collection<T> {
  return model.collection as unknown as mongo.Collection<T>;
}

export interface ConnectOptions {
  metrics?: Metrics;
  /** How long an operation waits for a reachable server before failing (503 upstream). */
  serverSelectionTimeoutMS?: number;
}

/** Index names a schema declared once and no longer does, by schema (retireIndexes). */
const retiredIndexes = new WeakMap<Schema, readonly string[]>();

/**
 * Names indexes `schema` used to declare: Database.syncIndexes drops them, after creating the
 * declared ones, so a database made by an earlier version stops maintaining them on every write.
 */
export function retireIndexes(schema: Schema, names: readonly string[]): void {
  retiredIndexes.set(schema, [...(retiredIndexes.get(schema) ?? []), ...names]);
}

export class Database {
  /**
   * Readiness pings go through a client of their own: on the app's pool a ping queues behind the
   * requests in flight, so a merely busy database would be reported unavailable (503 from /readyz,
   * and an orchestrator would take a loaded instance out of rotation).
   */
  private pinger: mongoose.mongo.MongoClient | undefined;
  /** The ping in flight, shared by concurrent readiness checks (the pinger has one connection). */
  private pinging: Promise<boolean> | undefined;
  /** When the app's own client last got a reply (performance.now()). */
  private lastReplyAt = -Infinity;
  /** Says why the database is known to be away (its supervisor is relaunching it), if it is. */
  private knownOutage: () => string | undefined = () => undefined;

  private constructor(
    readonly conn: Connection,
    private readonly uri: string,
    /** The app's metrics, when it has them (the byte store counts its failures there too). */
    readonly metrics: Metrics | undefined,
  ) {}

  static async connect(uri: string, options: ConnectOptions = {}): Promise<Database> {
    const conn = mongoose.createConnection(uri, {
      // Fail fast instead of queueing operations while the database is away: requests answer 503.
      bufferCommands: false,
      autoIndex: false,
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 3000,
      maxPoolSize: 50,
      // The command meter (command-meter.ts) listens to the driver's command monitoring.
      monitorCommands: true,
    });
    try {
      await conn.asPromise();
    } catch (err) {
      // Otherwise the driver keeps monitoring the unreachable server and holds the process open.
      await conn.close().catch(() => {});
      throw err;
    }
    const db = new Database(conn, uri, options.metrics);
    const metrics = options.metrics;
    meterCommands(conn.getClient(), {
      started: (name) => metrics?.mongoCommands.inc({ command: name }),
      finished: (name, ms, failure) => {
        if (failure === undefined) db.lastReplyAt = performance.now();
        metrics?.mongoCommandSeconds.inc({ command: name }, ms / 1000);
        if (failure !== undefined && isNoSpaceError(failure)) metrics?.storageFailures.inc({ store: 'database' });
      },
    });
    return db;
  }

  /**
   * Calls `listener` with the name and document of every command the app's client sends from now
   * on, and `finished` (when given) with the same when its reply or failure arrived, until the
   * returned function is called (tests look at what a request sent, and what overlapped).
   */
  watchCommands(
    listener: (name: string, command: Record<string, unknown>) => void,
    finished?: (name: string, command: Record<string, unknown>) => void,
  ): () => void {
    return meterCommands(this.conn.getClient(), {
      started: listener,
      ...(finished && { finished: (name, _ms, _failure, command) => finished(name, command ?? {}) }),
    });
  }

  /** The model for `name`, compiled once per connection. */
  model<T>(name: string, schema: Schema<T>, collection?: string): Model<T> {
    return (this.conn.models[name] as Model<T> | undefined) ?? this.conn.model<T>(name, schema, collection);
  }

  /**
   * Creates the indexes of every model compiled so far, then drops those its schema retired
   * (retireIndexes) where they still exist: idempotent, run at start-up. Indexes nobody declared
   * or retired (an operator's own) are left alone.
   */
  async syncIndexes(): Promise<void> {
    for (const model of Object.values(this.conn.models)) {
      await model.createIndexes();
      const retired = retiredIndexes.get(model.schema) ?? [];
      if (retired.length === 0) continue;
      const present = new Set((await model.collection.indexes()).map((i) => i.name));
      for (const name of retired) if (present.has(name)) await model.collection.dropIndex(name);
    }
  }

  /**
   * Answers within about `timeoutMs` whether the database is up. A ping that fails says no. A ping
   * still unanswered at the deadline says no unless the database answered one of the app's own
   * commands meanwhile: then it is up and the wait was this process's (a saturated event loop
   * handles the reply late), and an instance must not leave rotation for being busy.
   */
  ping(timeoutMs = 2000): Promise<boolean> {
    if (this.knownOutage()) return Promise.resolve(false);
    this.pinging ??= this.pingOnce(timeoutMs).finally(() => {
      this.pinging = undefined;
    });
    return this.pinging;
  }

  private async pingOnce(timeoutMs: number): Promise<boolean> {
    this.pinger ??= new mongoose.mongo.MongoClient(this.uri, {
      maxPoolSize: 1,
      serverSelectionTimeoutMS: timeoutMs,
      connectTimeoutMS: timeoutMs,
    });
    const pinger = this.pinger;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), timeoutMs);
      });
      const answer = await Promise.race([
        pinger
          .db('admin')
          .command({ ping: 1 })
          .then(() => true),
        timeout,
      ]);
      return answer === 'late' ? this.lastReplyAt > started : answer;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Lets whoever looks after the database process (db/supervisor.ts) say when it is away and why. */
  reportOutagesFrom(outage: () => string | undefined): void {
    this.knownOutage = outage;
  }

  /** Why the database is unavailable, for /readyz. */
  unavailableReason(timeoutMs = 2000): string {
    return this.knownOutage() ?? `the database did not answer a ping within ${timeoutMs / 1000} seconds`;
  }

  get name(): string {
    return this.conn.name;
  }

  async dropDatabase(): Promise<void> {
    await this.conn.dropDatabase();
  }

  async close(): Promise<void> {
    await this.pinger?.close().catch(() => {});
    this.pinger = undefined;
    await this.conn.close();
  }
}
