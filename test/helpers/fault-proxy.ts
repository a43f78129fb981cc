/**
 * A fault-injection double at the driver's boundary: a TCP proxy between a MongoDB client and the
 * test database that forwards every message unchanged, except the commands `fault` picks, which it
 * answers itself with an error reply of the test's choosing (as a primary stepping down would) or
 * by closing the connection (a network fault). A replica set cannot run here; this is how a test
 * shows what the app does when the database answers as one does during an election.
 */
import net from 'node:net';
import mongoose from 'mongoose';

const { BSON } = mongoose.mongo;
const OP_MSG = 2013;

type Doc = Record<string, unknown>;
/** What to do with one command: answer it with `reply`, or drop the connection. */
export type Fault = { reply: Doc } | 'drop';

export interface FaultProxy {
  /** host:port of the proxy, to put in a connection string in place of the database's. */
  host: string;
  /** Decides for each command a client sends (its document); undefined forwards it. */
  fault: ((command: Doc) => Fault | undefined) | undefined;
  /** The commands answered or dropped by the proxy so far, by name. */
  injected: string[];
  close(): Promise<void>;
}

/** The command document of an OP_MSG (its body section), or undefined for any other message. */
function commandOf(message: Buffer): Doc | undefined {
  if (message.readInt32LE(12) !== OP_MSG || message[20] !== 0) return undefined;
  const size = message.readInt32LE(21);
  return BSON.deserialize(message.subarray(21, 21 + size));
}

/** An OP_MSG reply to the request `message` holding `doc`. */
function replyTo(message: Buffer, doc: Doc): Buffer {
  const body = BSON.serialize(doc);
  const header = Buffer.alloc(21);
  header.writeInt32LE(21 + body.length, 0);
  header.writeInt32LE(Math.floor(Math.random() * 2 ** 30), 4);
  header.writeInt32LE(message.readInt32LE(4), 8);
  header.writeInt32LE(OP_MSG, 12);
  header.writeInt32LE(0, 16);
  header[20] = 0;
  return Buffer.concat([header, body]);
}

/** A proxy to `target` ("host:port") on a free loopback port. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const [targetHost, targetPort] = [target.slice(0, target.lastIndexOf(':')), Number(target.split(':').pop())];
  const sockets = new Set<net.Socket>();
  const proxy: FaultProxy = { host: '', fault: undefined, injected: [], close: async () => {} };
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.pipe(client);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const message = pending.subarray(0, pending.readInt32LE(0));
        pending = pending.subarray(message.length);
        const command = commandOf(message);
        const fault = command && proxy.fault?.(command);
        if (!fault) {
          upstream.write(message);
          continue;
        }
        proxy.injected.push(Object.keys(command)[0]!);
        if (fault === 'drop') {
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(replyTo(message, fault.reply));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  proxy.host = `127.0.0.1:${address.port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

/** `uri` with its host replaced by the proxy's. */
export function throughProxy(uri: string, proxy: FaultProxy): string {
  const url = new URL(uri);
  url.host = proxy.host;
  return url.toString();
}

/** The error reply of a primary that stepped down (or of a secondary), as the server sends it. */
export const NOT_WRITABLE_PRIMARY: Doc = {
  ok: 0,
  errmsg: 'not primary',
  code: 10107,
  codeName: 'NotWritablePrimary',
};
