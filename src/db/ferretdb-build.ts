/**
 * Builds FerretDB 1.24 once with the machine's Go toolchain and caches the binary outside the
 * repository, so later starts and fresh clones on the same machine reuse it.
 *
 * `go install …/cmd/ferretdb@v1.24.2` cannot be used as is: the proxy refuses the version list the
 * install step reads, and the module as published has no build/version/version.txt, which its own
 * main package requires. So the module source is downloaded, copied to a writable directory, given
 * that file and Agora's patch series (third_party/ferretdb/, applied by ferretdb-patches.ts), and
 * built in place with its own go.mod and go.sum. docs/embedded-database.md says what the series changes.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../core/process';
import { applySeries, seriesBuildId } from './ferretdb-patches';

export const FERRETDB_VERSION = 'v1.24.2';
const MODULE = 'github.com/FerretDB/FerretDB';

let build: string | undefined;

/**
 * Names the build (and its cache folder): FerretDB's version and a hash of the patch series, so a
 * changed patch or added file can never reuse a binary built without it. Computed when first needed:
 * a deployment on MongoDB (the Docker image) has no series to read.
 */
function buildName(): string {
  if (build === undefined) {
    try {
      build = `${FERRETDB_VERSION}-agora-${seriesBuildId(FERRETDB_VERSION)}`;
    } catch (err) {
      throw new Error(`Agora's FerretDB patch series cannot be read (${(err as Error).message})`, { cause: err });
    }
  }
  return build;
}

export function cachedFerretdbPath(cacheDir: string): string {
  return path.join(cacheDir, `ferretdb-${buildName()}`, 'ferretdb');
}

/** Whether `bin` is our build of the patch series (not a binary FERRETDB_BIN names). */
export function isAgoraBuild(bin: string): boolean {
  try {
    return path.basename(path.dirname(bin)) === `ferretdb-${buildName()}`;
  } catch {
    // No series to read (a deployment without third_party/): not a build of ours.
    return false;
  }
}

/** How a FerretDB binary is named in logs: our build says so; one given by FERRETDB_BIN is as it is. */
export function ferretdbBuildName(bin: string): string {
  return isAgoraBuild(bin) ? `${FERRETDB_VERSION} + Agora patches` : FERRETDB_VERSION;
}

type Log = (msg: string) => void;

/** The Go processes running now: an interrupted build stops them before removing their folder. */
const running = new Set<ChildProcess>();

export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; onLine?: (l: string) => void },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    child.on('exit', () => running.delete(child));
    let out = '';
    let err = '';
    const feed = (chunk: Buffer, sink: 'out' | 'err') => {
      const s = chunk.toString();
      if (sink === 'out') out += s;
      else err += s;
      if (opts.onLine) for (const line of s.split('\n')) if (line.trim()) opts.onLine(line);
    };
    child.stdout.on('data', (c: Buffer) => feed(c, 'out'));
    child.stderr.on('data', (c: Buffer) => feed(c, 'err'));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code}):\n${(err || out).slice(-4000)}`));
    });
  });
}

/**
 * Builds FerretDB into the cache and returns the binary's path. Progress goes to `log`: what is
 * happening, a heartbeat with the number of packages compiled, and the time it took.
 */
export async function buildFerretdb(goBin: string, cacheDir: string, log: Log): Promise<string> {
  const target = cachedFerretdbPath(cacheDir);
  const workDir = path.dirname(target);
  fs.mkdirSync(workDir, { recursive: true });
  removeAbandonedBuilds(workDir);
  const started = Date.now();
  log(
    `No MongoDB-compatible server found: building FerretDB ${FERRETDB_VERSION} with ${goBin} into ${workDir}. ` +
      `This happens once per machine and takes ${BUILD_ESTIMATE}; later starts take about a second.`,
  );
  const env = goEnv();
  let compiled = 0;
  let phase = 'downloading the module';
  const heartbeat = setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    log(
      `  still building FerretDB: ${phase}${compiled ? `, ${compiled} packages compiled` : ''} ` +
        `(${s}s so far; usually ${BUILD_ESTIMATE})`,
    );
  }, 10_000);
  // A folder of this process's own: two processes building at once must not share a source tree.
  const src = path.join(workDir, `src-${process.pid}`);
  // Interrupted (Ctrl-C, SIGTERM) before it ends, the build's folder and partial binary go too; a
  // build killed outright leaves them to the next build's removeAbandonedBuilds.
  const onSignal = (signal: NodeJS.Signals) => {
    for (const child of running) child.kill('SIGKILL');
    fs.rmSync(src, { recursive: true, force: true });
    fs.rmSync(`${target}.tmp-${process.pid}`, { force: true });
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  try {
    await prepareFerretdbSource(goBin, src, env);
    phase = 'compiling';
    const tmp = `${target}.tmp-${process.pid}`;
    await run(goBin, ['build', '-v', '-trimpath', '-o', tmp, './cmd/ferretdb'], {
      cwd: src,
      env,
      onLine: (l) => {
        if (!l.startsWith('go: ')) compiled += 1;
      },
    });
    fs.renameSync(tmp, target);
  } finally {
    clearInterval(heartbeat);
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    fs.rmSync(src, { recursive: true, force: true });
  }
  log(`Built FerretDB in ${Math.round((Date.now() - started) / 1000)}s; cached at ${target}.`);
  return target;
}

/** How long a first build takes (measured by the build's own log line "Built FerretDB in …"). */
const BUILD_ESTIMATE = 'about 2 minutes on two cores (longer on a busy machine)';

/** Removes the source folders and partial binaries of builds whose process is gone. */
export function removeAbandonedBuilds(workDir: string): void {
  for (const name of fs.existsSync(workDir) ? fs.readdirSync(workDir) : []) {
    const pid = /^(?:src-|ferretdb\.tmp-)(\d+)$/.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !isAlive(Number(pid)))
      fs.rmSync(path.join(workDir, name), { recursive: true, force: true });
  }
}

/** The environment the build and the Go checks run Go in. */
export function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
}

/**
 * Puts FerretDB's module source, patched, at `src` (replaced if present): downloaded through the Go
 * module proxy (or taken from the module cache), copied writable, given its version file and the series.
 */
export async function prepareFerretdbSource(goBin: string, src: string, env: NodeJS.ProcessEnv = goEnv()) {
  fs.mkdirSync(path.dirname(src), { recursive: true });
  const download = ['mod', 'download', '-json', `${MODULE}@${FERRETDB_VERSION}`];
  const json = await run(goBin, download, { env, cwd: path.dirname(src) });
  const dir = (JSON.parse(json) as { Dir?: string }).Dir;
  if (!dir) throw new Error('go mod download did not report a source directory');
  fs.rmSync(src, { recursive: true, force: true });
  fs.cpSync(dir, src, { recursive: true });
  // The module cache is read-only; the copy must be writable to add the version file.
  for (const p of walk(src)) fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644);
  fs.writeFileSync(path.join(src, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);
  return applySeries(src);
}

function* walk(dir: string): Generator<string> {
  yield dir;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}
