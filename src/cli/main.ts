/**
 * `npm run cli -- <command> …` (or `node dist/cli/main.js`): admin commands with the server's own
 * configuration. On the embedded default it reuses the database a running server launched on the
 * same DATA_DIR, or launches it for the duration of the command.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import { ConfigError, Env, loadConfig } from '../config';
import { resolveJwtSecret } from '../config/secret';
import type { Agora } from '../server';
import { AppError } from '../core/errors';
import { CliIO, parseArgs, UsageError } from './command';
import { commands } from './commands';

function help(io: CliIO): void {
  io.out('Usage: npm run cli -- <command> [arguments]\n\nCommands:');
  const width = Math.max(...commands.map((c) => c.usage.length));
  for (const c of commands) io.out(`  ${c.usage.padEnd(width)}  ${c.summary}`);
}

export async function runCli(argv: string[], env: Env, io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    help(io);
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.err(`Unknown command: ${name}\n`);
    help(io);
    return 2;
  }
  let args;
  try {
    args = parseArgs(rest, command.flags);
  } catch (err) {
    io.err(`${(err as Error).message}\nUsage: ${command.usage}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(err.message);
      return 2;
    }
    throw err;
  }
  if (!command.needsDatabase) return runCommand();

  // Loaded only for a command that needs them: `help` and argument errors answer without the app.
  const { launchDatabase } = await import('../db/launcher');
  const { createAgora, withDatabaseName } = await import('../server');
  fs.mkdirSync(config.dataDir, { recursive: true });
  let database;
  try {
    database = await launchDatabase({ dataDir: config.dataDir, database: config.database, log: (m) => io.err(m) });
  } catch (err) {
    // No database could be started: the launcher's message lists every option it tried.
    io.err(`error: ${(err as Error).message}`);
    return 1;
  }
  let agora;
  try {
    try {
      agora = await createAgora(config, {
        mongoUri: withDatabaseName(database.uri, 'agora'),
        databaseKind: database.kind,
        jwtSecret: resolveJwtSecret(config),
        logger: { level: 'warn' },
        processMetrics: false,
      });
    } catch (err) {
      if (!/ServerSelection|MongoNetwork/.test((err as Error).name)) throw err;
      // The database did not answer: say so plainly instead of a driver stack trace.
      io.err(`error: cannot reach the database (${database.description}): ${(err as Error).message.split('\n')[0]}`);
      return 1;
    }
    return await runCommand(agora);
  } finally {
    await agora?.close().catch(() => {});
    await database.stop();
  }

  async function runCommand(a?: Agora): Promise<number> {
    try {
      return await command!.run(args!, a, io);
    } catch (err) {
      if (err instanceof UsageError) {
        io.err(`${err.message}\nUsage: ${command!.usage}`);
        return 2;
      }
      if (err instanceof AppError) {
        io.err(`error: ${err.message}`);
        return 1;
      }
      throw err;
    }
  }
}

const stdio: CliIO = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: (n) => process.env[n],
  readStdin: async () => {
    if (process.stdin.isTTY) return '';
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

if (require.main === module) {
  runCli(process.argv.slice(2), process.env, stdio)
    .then((code) => process.exit(code))
    .catch((err) => {
      process.stderr.write(`fatal: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    });
}
