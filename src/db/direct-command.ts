/**
 * A command sent straight to the server the driver would pick for it, without the driver's
 * per-operation machinery: for the hot reads (whole-read.ts), which are plain `find`/`getMore`
 * commands on the primary, with no session, transaction or retry of their own.
 *
 * Why: `db.command()` runs every command through executeOperation, which starts and ends an
 * implicit session, resolves read preference and options, selects a server and wraps the call in
 * its retry loop. A `find` of one document by `_id` costs the client less CPU through
 * Server.command; under bench/load.js the driver's machinery was the largest avoidable cost of the
 * server's event loop after BSON decoding (bench/README.md, Decisions).
 *
 * What is kept: Server.command itself, so the connection pool, authentication, compression, the
 * command meter (command-meter.ts) and command monitoring, the handling of a network error (the
 * server is marked unknown and its pool cleared) and re-authentication all stay the driver's. What is
 * dropped is safe for these reads: an implicit session only lends the command an `lsid`; server
 * selection is done here, from the topology the driver keeps current (a writable server: the
 * standalone, the replica set's primary or a mongos, which is where `db.command` sends a command
 * with its default primary read preference).
 *
 * When the fast path cannot be taken (no connected writable server known, a load-balanced
 * deployment, client-side timeouts, driver internals not where this module expects them), or the
 * command fails other than with the server's own answer (a network error, a pool cleared under
 * it), the command goes through `db.command()` — once, as the reads are idempotent.
 */
import mongoose from 'mongoose';
import { driverModule } from './driver-internals';

type Document = mongoose.mongo.Document;

interface Response {
  toObject(options?: unknown): Document;
}

interface DriverServer {
  description: { isWritable: boolean; address: string };
  s: { state: string };
  command(operation: DirectOperation, timeoutContext: unknown): Promise<Response>;
}

interface DriverTopology {
  s: {
    servers: Map<string, DriverServer>;
    description: { type: string };
  };
}

interface ClientInternals {
  topology?: DriverTopology;
  s: { options: { serverSelectionTimeoutMS?: number; waitQueueTimeoutMS?: number; timeoutMS?: number } };
}

/** What Server.command reads of an operation. */
interface DirectOperation {
  session: undefined;
  options: Record<string, never>;
  ns: unknown;
  SERVER_COMMAND_RESPONSE_TYPE: unknown;
  buildCommand(): Document;
  buildOptions(timeoutContext: unknown): { timeoutContext: unknown };
}

interface Internals {
  responseType: unknown;
  createTimeoutContext(options: Record<string, unknown>): unknown;
}

let internals: Internals | null | undefined;

/** The driver's internal classes this module needs, or null when they are not where expected. */
function driverInternals(): Internals | null {
  if (internals !== undefined) return internals;
  try {
    const { MongoDBResponse } = driverModule<{ MongoDBResponse?: unknown }>('cmap/wire_protocol/responses');
    const { TimeoutContext } = driverModule<{ TimeoutContext?: { create?: (o: unknown) => unknown } }>('timeout');
    const { Server } = driverModule<{ Server?: { prototype: { command?: unknown } } }>('sdam/server');
    const create = TimeoutContext?.create;
    const found =
      typeof MongoDBResponse === 'function' &&
      typeof create === 'function' &&
      typeof Server?.prototype.command === 'function';
    internals = found
      ? { responseType: MongoDBResponse, createTimeoutContext: (o) => create.call(TimeoutContext, o) }
      : null;
  } catch {
    internals = null;
  }
  return internals;
}

/** Per client: the server last chosen and the (stateless, legacy) timeout context of its commands. */
interface ClientState {
  server?: DriverServer;
  timeoutContext: unknown;
}
const states = new WeakMap<object, ClientState>();
/** Per database: the namespace its commands are sent to (`<db>.$cmd`). */
const namespaces = new WeakMap<mongoose.mongo.Db, unknown>();

function usable(server: DriverServer | undefined, topology: DriverTopology): server is DriverServer {
  return (
    !!server &&
    server.s.state === 'connected' &&
    server.description.isWritable &&
    topology.s.servers.get(server.description.address) === server
  );
}

/** The server `db.command` would send a command to, when this module can tell; else undefined. */
function serverFor(client: ClientInternals, ints: Internals): { server: DriverServer; state: ClientState } | undefined {
  const topology = client.topology;
  const options = client.s.options;
  // Load-balanced deployments pin connections to sessions; client-side timeouts need a CSOT context.
  if (!topology || topology.s.description.type === 'LoadBalanced' || options.timeoutMS != null) return undefined;
  let state = states.get(client);
  if (!state) {
    state = {
      timeoutContext: ints.createTimeoutContext({
        serverSelectionTimeoutMS: options.serverSelectionTimeoutMS,
        waitQueueTimeoutMS: options.waitQueueTimeoutMS,
      }),
    };
    states.set(client, state);
  }
  if (!usable(state.server, topology)) {
    state.server = undefined;
    for (const s of topology.s.servers.values()) {
      if (usable(s, topology)) {
        state.server = s;
        break;
      }
    }
  }
  return state.server ? { server: state.server, state } : undefined;
}

function namespaceOf(db: mongoose.mongo.Db): unknown {
  let ns = namespaces.get(db);
  if (!ns) {
    const own = (db as unknown as { s?: { namespace?: { withCollection?(c: string): unknown } } }).s?.namespace;
    ns = own?.withCollection?.('$cmd');
    if (ns) namespaces.set(db, ns);
  }
  return ns;
}

/** Where and how `db`'s next command goes on the direct path; undefined when it cannot take it now. */
interface Target {
  server: DriverServer;
  state: ClientState;
  ns: unknown;
  responseType: unknown;
}

function directTarget(db: mongoose.mongo.Db): Target | undefined {
  const ints = driverInternals();
  const ns = ints ? namespaceOf(db) : undefined;
  const chosen = ns ? serverFor(db.client as unknown as ClientInternals, ints!) : undefined;
  return chosen && { ...chosen, ns, responseType: ints!.responseType };
}

/** Whether `db`'s commands can take the direct path now (for the tests). */
export function directPathReady(db: mongoose.mongo.Db): boolean {
  return directTarget(db) !== undefined;
}

/**
 * Runs `command` on `db` as `db.command(command)` does (the reply decoded with the driver's default
 * options; an error reply thrown as a MongoServerError), through Server.command when it can.
 */
export async function directCommand(db: mongoose.mongo.Db, command: Document): Promise<Document> {
  const target = directTarget(db);
  if (!target) return db.command(command);
  const operation: DirectOperation = {
    session: undefined,
    options: {},
    ns: target.ns,
    SERVER_COMMAND_RESPONSE_TYPE: target.responseType,
    buildCommand: () => command,
    buildOptions: (timeoutContext) => ({ timeoutContext }),
  };
  try {
    const reply = await target.server.command(operation, target.state.timeoutContext);
    return reply.toObject();
  } catch (err) {
    // The server's own answer (a bad query, a missing namespace…) is the command's answer.
    if (err instanceof mongoose.mongo.MongoServerError) throw err;
    // Anything else (a network error, a pool cleared, the server closing) left the driver's view
    // of the deployment updated: the command goes through its own path, server selection included.
    target.state.server = undefined;
    return db.command(command);
  }
}
