/** Starting and stopping a local database server process. */
import { spawn, ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { isAlive } from '../core/process';

export { isAlive };

/** Binds host:port for a moment; resolves with the port bound (port 0: the one the OS chose), or undefined. */
function tryBind(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', () => resolve(undefined));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const bound = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(bound));
    });
  });
}

/** Whether nothing listens on (or holds) the loopback port. */
export async function portIsFree(port: number): Promise<boolean> {
  return (await tryBind(port)) === port;
}

/**
 * A free loopback port for a database server. Preferably below Linux's ephemeral range
 * (32768–60999), where the OS never hands the port to an outgoing connection while the database is
 * down and being relaunched on it; else whatever the OS gives.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const candidate = 20000 + Math.floor(Math.random() * 12000);
    if (await portIsFree(candidate)) return candidate;
  }
  const port = await tryBind(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}

/** Resolves once something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the process exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a server with its output appended to logFile; the child does not die with a terminal's SIGINT. */
export function startServer(
  bin: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(bin, args, { stdio: ['ignore', out, out], detached: true, env });
  fs.closeSync(out);
  return child;
}

/** SIGTERM, then SIGKILL after graceMs; resolves when the process is gone. */
export async function stopPid(pid: number, graceMs = 5000): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20));
  }
}

/** Finds an executable named `name` on a PATH string. */
export function whichSync(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(':')) {
    if (!dir) continue;
    const candidate = `${dir}/${name}`;
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}
