/**
 * Tests that drive the real process (`node dist/main.js`) need a build of the current sources.
 * `npm test` builds before Jest; when a single file runs alone, this builds if src/ changed since.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DIST_MAIN = path.join(ROOT, 'dist', 'main.js');
export const DIST_CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

/** Runs `npm run build`'s script, which compiles only when src/ changed (scripts/build.js). */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'build.js'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
}
