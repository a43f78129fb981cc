/**
 * The FerretDB build works in a folder of its own process (src-<pid>) in the cache: interrupted
 * (Ctrl-C), it removes that folder and stops Go before the process ends; a build killed outright
 * leaves it to the next build, which removes the folders of builds whose process is gone.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeAbandonedBuilds } from '../../src/db/ferretdb-build';
import { ensureBuilt, ROOT } from '../helpers/dist';

jest.setTimeout(180_000);

const go = spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).stdout.trim();
let cache: string;
beforeEach(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-build-cache-'));
});
afterEach(() => fs.rmSync(cache, { recursive: true, force: true }));

const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;

it('removes the folders and partial binaries of builds whose process is gone, only those', () => {
  const work = path.join(cache, 'ferretdb-x');
  const dead = deadPid();
  for (const name of [`src-${dead}`, `src-${process.pid}`, `src-${process.ppid}`])
    fs.mkdirSync(path.join(work, name), { recursive: true });
  fs.writeFileSync(path.join(work, `ferretdb.tmp-${dead}`), '');
  fs.writeFileSync(path.join(work, 'ferretdb'), '');
  removeAbandonedBuilds(work);
  expect(fs.readdirSync(work).sort()).toEqual(['ferretdb', `src-${process.pid}`, `src-${process.ppid}`].sort());
});

(go ? it : it.skip)('Ctrl-C during the build leaves no source folder and no Go process', async () => {
  ensureBuilt();
  const script =
    `require(${JSON.stringify(path.join(ROOT, 'dist', 'db', 'ferretdb-build.js'))})` +
    `.buildFerretdb(${JSON.stringify(go)}, ${JSON.stringify(cache)}, (m) => console.log(m))`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  const src = () => {
    const work = fs.readdirSync(cache).find((d) => d.startsWith('ferretdb-'));
    return work ? path.join(cache, work, `src-${child.pid}`) : undefined;
  };
  // Wait until the patched source is in place (Go runs, or is about to).
  for (
    let i = 0;
    i < 1200 && !fs.existsSync(path.join(src() ?? '/nonexistent', 'build', 'version', 'version.txt'));
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  expect(fs.existsSync(src()!)).toBe(true);
  // Processes working in the cache (Go runs in the source folder).
  const workingInCache = () =>
    fs.readdirSync('/proc').filter((p) => {
      try {
        return /^\d+$/.test(p) && fs.readlinkSync(`/proc/${p}/cwd`).startsWith(cache);
      } catch {
        return false;
      }
    });
  child.kill('SIGINT');
  const [, signal] = await exited;
  expect(signal).toBe('SIGINT');
  expect(fs.existsSync(src()!)).toBe(false);
  expect(fs.readdirSync(path.dirname(src()!)).filter((f) => f.includes(String(child.pid)))).toEqual([]);
  for (let i = 0; i < 50 && workingInCache().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(workingInCache()).toEqual([]);
  expect(out).not.toMatch(/Built FerretDB/);
});
