/** Process entry: config → database → app → listen; graceful shutdown on SIGINT/SIGTERM. */
import './threadpool';
import 'reflect-metadata';
import fs from 'node:fs';
import { ConfigError, loadConfig } from './config';
import { resolveJwtSecret } from './config/secret';
import { launchDatabase } from './db/launcher';
import { DatabaseSupervisor, SupervisorLog } from './db/supervisor';
import { createAgora, withDatabaseName } from './server';
import { downloadPath } from './storage/sendfile';
import { startIdleTrim } from './core/idle-trim';
import { VERSION } from './version';

function say(msg: string): void {
  process.stderr.write(`[agora] ${msg}\n`);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      say(err.message);
      process.exit(2);
    }
    throw err;
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const jwtSecret = resolveJwtSecret(config);
  const database = await launchDatabase({ dataDir: config.dataDir, database: config.database, log: say });
  say(`Database: ${database.description}`);

  // The embedded database is relaunched if it dies, and adopted if its owner does (db/supervisor.ts).
  let appLog: SupervisorLog | undefined;
  const supervisor = DatabaseSupervisor.for(database, {
    log: {
      info: (m) => (appLog ? appLog.info(m) : say(m)),
      warn: (m) => (appLog ? appLog.warn(m) : say(m)),
      error: (m) => (appLog ? appLog.error(m) : say(m)),
    },
  });
  supervisor?.start();
  const stopDatabase = async () => {
    await supervisor?.stop();
    await database.stop();
  };

  let agora;
  try {
    agora = await createAgora(config, {
      mongoUri: withDatabaseName(database.uri, 'agora'),
      databaseKind: database.kind,
      jwtSecret,
    });
  } catch (err) {
    await stopDatabase();
    throw err;
  }
  const { app } = agora;
  appLog = { info: (m) => app.log.info(m), warn: (m) => app.log.warn(m), error: (m) => app.log.error(m) };
  if (supervisor) agora.db.reportOutagesFrom(() => supervisor.outage());

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      say(`${signal} again: stopping the database and exiting now`);
      await stopDatabase().catch(() => {});
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, waiting for in-flight requests');
    const timer = setTimeout(() => {
      app.log.warn('shutdown grace period over: closing remaining connections');
      app.server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    timer.unref();
    try {
      await agora.close();
    } catch (err) {
      app.log.error({ err }, 'error while closing');
    }
    clearTimeout(timer);
    await stopDatabase();
    app.log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    say(`Cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
    await agora.close().catch(() => {});
    await stopDatabase();
    process.exit(1);
  }
  await agora.start();
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  say(
    `Agora ${VERSION} listening on http://${shownHost}:${port} — GraphiQL at /graphiql, REST at ` +
      `/api/beta and /upload`,
  );
  const gridfs = config.files.storage === 'gridfs';
  say(`Downloads: ${gridfs ? 'streamed from GridFS (FILES_STORAGE=gridfs)' : downloadPath(config.files.sendfile)}`);
  // A burst's memory back once quiet (core/idle-trim.ts); needs the deployed flags' --expose-gc.
  startIdleTrim(undefined, () =>
    say('Idle memory trim: off (node runs without --expose-gc; memory a burst grew stays while idle)'),
  );
}

main().catch((err) => {
  say(`fatal: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
