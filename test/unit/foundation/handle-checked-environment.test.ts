/**
 * The test environment's own check (test/setup/handle-checked-environment.js): a file that leaves a
 * server or socket open fails, naming what it left and where the socket was opened; one that closes
 * everything passes. Driven directly, as Jest drives it: setup, the file's work, teardown.
 */
import net from 'node:net';

const HandleCheckedEnvironment = require('../../setup/handle-checked-environment.js');

function environment() {
  const projectConfig = { testEnvironmentOptions: {}, testPath: __filename };
  return new HandleCheckedEnvironment(
    { globalConfig: {}, projectConfig },
    { console, docblockPragmas: {}, testPath: '/repo/test/unit/leaky.test.ts' },
  );
}

const listening = (server: net.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );

it('fails a file that leaves a server and a socket open, naming them and the line that opened the socket', async () => {
  const env = environment();
  await env.setup();
  const server = net.createServer();
  const port = await listening(server);
  const client = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => client.once('connect', resolve));
  try {
    const failure = await env.teardown().then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failure).toMatch(/^\/repo\/test\/unit\/leaky\.test\.ts left open .*: TCPServerWrap ×1, TCPSocketWrap ×2\./);
    // The client's socket, with the line of this file that opened it.
    expect(failure).toMatch(/a socket opened \([^)]*\) at:\n\s+at .*handle-checked-environment\.test\.ts:\d+/);
  } finally {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}, 20_000);

it('passes a file that closes what it opened, even when the close completes after its last hook', async () => {
  const env = environment();
  await env.setup();
  const server = net.createServer((socket) => socket.end());
  const port = await listening(server);
  const client = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => client.once('end', resolve));
  client.destroy();
  server.close();
  await expect(env.teardown()).resolves.toBeUndefined();
}, 20_000);
