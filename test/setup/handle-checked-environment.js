/**
 * Jest's node environment, plus a check that each test file closes what it opened.
 *
 * Jest runs many test files in one worker process; a server, socket, child process or timer a file
 * leaves open keeps that worker alive at the end, and Jest then forces it out ("A worker process has
 * failed to exit gracefully") without naming the file. Here each file's teardown compares the process's
 * ref'd resources (process.getActiveResourcesInfo(): handles, requests and ref'd timers) with those
 * at its setup, after giving closes a moment, and fails the file that left more than it found, naming
 * what it left and, for sockets, where they were opened.
 */
'use strict';

const { TestEnvironment } = require('jest-environment-node');
const diagnostics = require('node:diagnostics_channel');

/** How long a file's closes may take to finish after its last hook (sockets close on a later tick). */
const SETTLE_MS = 3000;

function counts() {
  const byType = new Map();
  for (const type of process.getActiveResourcesInfo()) byType.set(type, (byType.get(type) ?? 0) + 1);
  return byType;
}

function grown(before, after) {
  const more = [];
  for (const [type, n] of after) {
    const extra = n - (before.get(type) ?? 0);
    if (extra > 0) more.push(`${type} ×${extra}`);
  }
  return more;
}

/** A test file's path from the repository's test/ folder on. */
const shortName = (testPath) => testPath.replace(/.*\/test\//, 'test/');

/**
 * The open TCP sockets this worker opened (net.client.socket) or accepted (net.server.socket), each with
 * where it was opened and during which file: node:diagnostics_channel, cheap enough to be always on.
 */
const sockets = new Map();
const current = { generation: 0, file: '' };
const recordSocket = (side) => (message) => {
  const socket = message.socket;
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = limit;
  const frames = holder.stack.split('\n').slice(1);
  const ours = frames.filter((line) => /\/(test|src)\//.test(line) && !line.includes('/test/setup/'));
  const stack = (ours.length > 0 ? ours : frames).slice(0, 8).join('\n');
  sockets.set(socket, { side, stack, at: current.generation, file: current.file });
  socket.once('close', () => sockets.delete(socket));
};
diagnostics.subscribe('net.client.socket', recordSocket('opened'));
diagnostics.subscribe('net.server.socket', recordSocket('accepted'));

/** Every socket still open, those of earlier files marked so. */
function openSockets(generation) {
  const shown = [];
  for (const [socket, r] of sockets) {
    if (socket.destroyed) continue;
    const peer = `${socket.localAddress}:${socket.localPort} → ${socket.remoteAddress}:${socket.remotePort}`;
    const when = r.at < generation ? ` during ${r.file}` : '';
    shown.push(`\n  a socket ${r.side}${when} (${peer}) at:\n${r.stack}`);
  }
  return shown.join('');
}

/** The files this worker ran before, newest last: a leak can be made by one and show in a later one. */
const earlier = [];

class HandleCheckedEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    this.before = counts();
    this.generation = ++current.generation;
    current.file = shortName(this.testPath);
  }

  async teardown() {
    let more = grown(this.before, counts());
    for (let waited = 0; more.length > 0 && waited < SETTLE_MS; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
      more = grown(this.before, counts());
    }
    await super.teardown();
    const previous = earlier.slice(-3);
    earlier.push(shortName(this.testPath));
    if (more.length === 0) return;
    throw new Error(
      `${this.testPath} left open after its last hook (${SETTLE_MS} ms later): ${more.join(', ')}.` +
        ' Close what the file opens in afterAll/afterEach.' +
        ` This worker (pid ${process.pid}) ran before it: ${previous.join(', ') || 'nothing'}.` +
        openSockets(this.generation),
    );
  }
}

module.exports = HandleCheckedEnvironment;
