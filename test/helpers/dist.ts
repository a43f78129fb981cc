/**
 * Tests that drive the real process (`node dist/main.js`) need a build of the current sources.
 * `npm test` builds before Jest; when a single file runs alone, this builds if dist is stale.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DIST_MAIN = path.join(ROOT, 'dist', 'main.js');
export const DIST_CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    const t = e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs;
    if (t > newest) newest = t;
  }
  return newest;
}

export function ensureBuilt(): void {
  const built = fs.existsSync(DIST_MAIN) ? fs.statSync(DIST_MAIN).mtimeMs : 0;
  if (built >= newestMtime(path.join(ROOT, 'src'))) return;
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'inherit' },
  );
  fs.utimesSync(DIST_MAIN, new Date(), new Date());
}
