/**
 * The commands a MongoClient sends, counted and timed without the driver's command monitoring.
 *
 * With `monitorCommands` on, the driver builds a CommandSucceededEvent for every reply and, for it,
 * decodes the reply into plain objects, even a cursor's reply that the cursor then decodes again by
 * itself: every find's documents were decoded twice (visible in CPU profiles of bench/load.js).
 * The driver has no public hook that does not decode, so this module
 * wraps two of its internal methods, once per process:
 *   - ConnectionPool.checkOut tags each connection it lends with the meter of the pool's client;
 *   - Connection.command tells a tagged connection's meter of each command sent on it.
 * Handshakes and server monitoring run on connections that are never checked out, so a meter hears
 * only the commands the application's operations send. The driver's internals can change in any
 * release: `meterCommands` checks that they are where this module expects them and throws otherwise,
 * at start-up and in the tests, so an upgrade that moves them fails loudly instead of counting nothing.
 */
import type mongoose from 'mongoose';
import { driverModule } from './driver-internals';

type Command = Record<string, unknown>;

/** What a meter is told of each command (the command document is the driver's: read it, never change it). */
export interface CommandListener {
  started?(commandName: string, command: Command): void;
  /** After the reply or the failure; `failure` is the error the command failed with, if it did. */
  finished?(commandName: string, durationMs: number, failure?: unknown, command?: Command): void;
}

interface DriverConnection {
  command(ns: unknown, command: Command, options: unknown, responseType: unknown): Promise<unknown>;
}
interface DriverPool {
  server?: { topology?: { client?: unknown } };
  checkOut(options: unknown): Promise<DriverConnection>;
}

const METER = Symbol('agora.commandMeter');
type Tagged = DriverConnection & { [METER]?: CommandListener[] };

/** Listeners by client (the MongoClient object). */
const meters = new WeakMap<object, CommandListener[]>();
let installed = false;

function install(): void {
  const { Connection } = driverModule<{ Connection?: { prototype: DriverConnection } }>('cmap/connection');
  const { ConnectionPool } = driverModule<{ ConnectionPool?: { prototype: DriverPool } }>('cmap/connection_pool');
  const command = Connection?.prototype.command;
  const checkOut = ConnectionPool?.prototype.checkOut;
  if (typeof command !== 'function' || typeof checkOut !== 'function') {
    throw new Error('the MongoDB driver has no Connection.command or ConnectionPool.checkOut (db/command-meter.ts)');
  }

  ConnectionPool!.prototype.checkOut = async function (this: DriverPool, options: unknown) {
    const conn = (await checkOut.call(this, options)) as Tagged;
    const client = this.server?.topology?.client;
    conn[METER] = typeof client === 'object' && client !== null ? meters.get(client) : undefined;
    return conn;
  };

  Connection!.prototype.command = async function (
    this: Tagged,
    ns: unknown,
    cmd: Command,
    options: unknown,
    responseType: unknown,
  ) {
    const listeners = this[METER];
    if (!listeners || listeners.length === 0) return command.call(this, ns, cmd, options, responseType);
    // A command document's first key is the command's name.
    let name = '';
    for (const key in cmd) {
      name = key;
      break;
    }
    for (const l of listeners) l.started?.(name, cmd);
    const start = performance.now();
    try {
      const reply = await command.call(this, ns, cmd, options, responseType);
      const ms = performance.now() - start;
      for (const l of listeners) l.finished?.(name, ms, undefined, cmd);
      return reply;
    } catch (err) {
      const ms = performance.now() - start;
      for (const l of listeners) l.finished?.(name, ms, err, cmd);
      throw err;
    }
  };
  installed = true;
}

/**
 * `command` as the driver's command monitoring showed it: the document sequences an insert, update
 * or delete may carry (OP_MSG sections of their own) as arrays of their documents.
 */
export function plainCommand(command: Command): Command {
  const { DocumentSequence } = driverModule<{ DocumentSequence: new () => { documents: unknown[] } }>('cmap/commands');
  let copy: Command | undefined;
  for (const key in command) {
    const value = command[key];
    if (value instanceof DocumentSequence) (copy ??= { ...command })[key] = value.documents;
  }
  return copy ?? command;
}

/**
 * Tells `listener` of every command `client` sends from now on, until the returned function is
 * called. Connections already lent out are tagged when they are next checked out.
 */
export function meterCommands(client: mongoose.mongo.MongoClient, listener: CommandListener): () => void {
  if (!installed) install();
  let list = meters.get(client);
  if (!list) meters.set(client, (list = []));
  const listeners = list;
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i >= 0) listeners.splice(i, 1);
  };
}
