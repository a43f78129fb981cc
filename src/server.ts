/**
 * createAgora: connects to a database URI and assembles metrics, services and the HTTP app.
 * Shared by the process entry (main.ts), the tests and the benchmarks, so all run the same code.
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Config } from './config';
import { configureKdf } from './core/kdf';
import { Database } from './db/connection';
import { Metrics } from './metrics';
import { buildApp } from './app';
import { createDiscussion } from './discussion';
import { createFiles } from './files';
import { createEvents } from './events';
import { attachLive } from './live/server';
import { createRateLimits } from './rate-limit';
import { seedDemoIfEmpty } from './demo/seed';
import type { DomainModule } from './module';
import type { Clock } from './discussion';
import type { Services } from './services';
import type { DiskIo } from './storage';

export interface Agora {
  app: FastifyInstance;
  db: Database;
  metrics: Metrics;
  services: Services;
  config: Config;
  /**
   * Start-up work (demo seed, sweepers and their first pass); call after listening. /readyz
   * answers 503 until it is done (/healthz answers at once).
   */
  start(): Promise<void>;
  /**
   * Stops accepting, waits for in-flight requests (bounded by the caller), stops background work, closes the database.
   */
  close(): Promise<void>;
  /** Resolves once the live events recorded so far are in the log (the event writer batches them). */
  eventsWritten(): Promise<void>;
}

export interface CreateOptions {
  /** Connection string including the database name. */
  mongoUri: string;
  databaseKind: string;
  jwtSecret: string;
  logger?: FastifyServerOptions['logger'];
  processMetrics?: boolean;
  /** The discussion domain's time source: the real clock unless a test passes a SettableClock. */
  clock?: Clock;
  /** Tests only: a fault-injection double for the disk store's file-system calls (src/storage/disk-io.ts). */
  diskIo?: DiskIo;
}

/** Adds `name` as the database path of a MongoDB URI unless it already names one. */
export function withDatabaseName(uri: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/.exec(uri);
  if (!m) return uri;
  const [, hostPart, dbPath, query] = m;
  if (dbPath && dbPath.length > 1) return uri;
  return `${hostPart}/${name}${query ?? ''}`;
}

export async function createAgora(config: Config, opts: CreateOptions): Promise<Agora> {
  const metrics = new Metrics({ processMetrics: opts.processMetrics });
  configureKdf(config.kdf);
  const db = await Database.connect(opts.mongoUri, { metrics });
  // The app's logger is created by Fastify; modules built before it log through a placeholder
  // that forwards once the app exists.
  let appRef: FastifyInstance | undefined;
  const log = new Proxy({} as FastifyInstance['log'], {
    get: (_t, prop) => {
      const target = appRef?.log as unknown as Record<string | symbol, unknown> | undefined;
      const v = target?.[prop];
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : (v ?? (() => {}));
    },
  });
  const ctx = { config, db, metrics, jwtSecret: opts.jwtSecret, databaseKind: opts.databaseKind, log };
  const modules: DomainModule<unknown>[] = [];
  try {
    // Counters shared by the login, registration and upload limits (one collection, every instance).
    const rateLimits = createRateLimits(ctx);
    // The live events log: written by the domain services, read by every instance (src/live).
    const events = createEvents(ctx);
    const discussion = await createDiscussion(ctx, rateLimits.services, events.services.recorder, opts.clock);
    const files = await createFiles(ctx, rateLimits.services, { diskIo: opts.diskIo });
    modules.push(rateLimits, events, discussion, files);
    await db.syncIndexes();
    const services: Services = {
      runtime: { databaseKind: opts.databaseKind },
      discussion: discussion.services,
      files: files.services,
    };
    const startup = { done: false };
    const app = await buildApp({ config, db, metrics, services, startup, logger: opts.logger });
    appRef = app;
    // GraphQL subscriptions over WebSocket on /graphql, fed by the events log.
    attachLive(app, { config, services, metrics, events: events.services });
    let closed = false;
    return {
      app,
      db,
      metrics,
      services,
      config,
      async start() {
        // The seed writes through a service set with its own clock (seed.ts): requests served
        // meanwhile keep the real time.
        if (config.demoSeed) await seedDemoIfEmpty({ services, db, log: app.log });
        for (const m of modules) await m.start?.();
        startup.done = true;
      },
      eventsWritten: () => events.services.recorder.flushed(),
      async close() {
        if (closed) return;
        closed = true;
        await app.close();
        for (const m of modules) await m.stop?.();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
