/**
 * The commands a MongoClient sends, counted and timed through the driver's public command
 * monitoring (`monitorCommands: true`; the `commandStarted`, `commandSucceeded` and `commandFailed`
 * events of the client). The driver reports only the commands of the application's operations:
 * connection handshakes and server monitoring are not among them.
 *
 * What it costs: for each reply the driver builds a CommandSucceededEvent, decoding the reply into
 * objects for it. A cursor's documents would so be decoded twice; the hot reads ask for their
 * documents raw (whole-read.ts), and for a raw find or getMore the driver leaves the batch's
 * documents as bytes in the event's copy too, so the extra decoding is of the small envelope only.
 */
import type mongoose from 'mongoose';

type Command = Record<string, unknown>;
type Mongo = typeof mongoose.mongo;
type StartedEvent = InstanceType<Mongo['CommandStartedEvent']>;
type SucceededEvent = InstanceType<Mongo['CommandSucceededEvent']>;
type FailedEvent = InstanceType<Mongo['CommandFailedEvent']>;

/** What a meter is told of each command (the command document is the driver's: read it, never change it). */
export interface CommandListener {
  started?(commandName: string, command: Command): void;
  /** After the reply or the failure; `failure` is the error the command failed with, if it did. */
  finished?(commandName: string, durationMs: number, failure?: unknown, command?: Command): void;
}

/**
 * Tells `listener` of every command `client` sends from now on, until the returned function is
 * called. The client must have been created with `monitorCommands: true` (Database.connect does):
 * without it the driver emits nothing, and a meter that counts nothing is refused here.
 */
export function meterCommands(client: mongoose.mongo.MongoClient, listener: CommandListener): () => void {
  if (!client.options.monitorCommands) {
    throw new Error('meterCommands needs a MongoClient created with monitorCommands: true');
  }
  // The driver's durations are whole milliseconds; a command's own start is kept for a finer one.
  // Request ids are unique per process, so they key the commands in flight.
  const inFlight = new Map<number, { at: number; command: Command }>();
  const started = (e: StartedEvent) => {
    inFlight.set(e.requestId, { at: performance.now(), command: e.command });
    listener.started?.(e.commandName, e.command);
  };
  const finish = (e: SucceededEvent | FailedEvent, failure?: unknown) => {
    const start = inFlight.get(e.requestId);
    if (start) inFlight.delete(e.requestId);
    const ms = start ? performance.now() - start.at : e.duration;
    listener.finished?.(e.commandName, ms, failure, start?.command);
  };
  const succeeded = (e: SucceededEvent) => finish(e);
  const failed = (e: FailedEvent) => finish(e, e.failure);
  client.on('commandStarted', started);
  client.on('commandSucceeded', succeeded);
  client.on('commandFailed', failed);
  return () => {
    client.off('commandStarted', started);
    client.off('commandSucceeded', succeeded);
    client.off('commandFailed', failed);
    inFlight.clear();
  };
}
