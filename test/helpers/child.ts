/** Runs the built server as a real child process and reads what it prints. */
import { ChildProcess, spawn } from 'node:child_process';
import { DIST_MAIN, ROOT } from './dist';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // No per-address upload/registration limits nor per-account write limits (tests send many from
  // 127.0.0.1, as few users) unless `extra` sets them.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'warn',
    PORT: '0',
    FILES_UPLOAD_RATE_LIMIT: '0',
    REGISTRATION_RATE_LIMIT: '0',
    TOPIC_RATE_LIMIT: '0',
    COMMENT_RATE_LIMIT: '0',
    VOTE_RATE_LIMIT: '0',
    LABEL_RATE_LIMIT: '0',
    FILES_KEY_CHECK_LIMIT: '0',
    ...extra,
  };
  // Kept when set. NODE_DISABLE_COMPILE_CACHE: npm on Node 22+ turns on Node's compile cache in the
  // temporary folder, which this env does not name (so /tmp); a child npm of a run that turned it off
  // (.ci/run's Node 24 suite) keeps it off.
  for (const name of ['XDG_CACHE_HOME', 'NODE_DISABLE_COMPILE_CACHE']) {
    if (process.env[name]) env[name] = process.env[name];
  }
  return env;
}

/** Starts `node [nodeArgs] dist/main.js` and resolves once it prints its listening line. */
export function startServerProcess(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, DIST_MAIN], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!.replace('localhost', '127.0.0.1'), output: () => out, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
}
