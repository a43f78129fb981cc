/**
 * The launch lock of one DATA_DIR (launcher.ts takes every launch, relaunch and adoption holding it).
 *
 * The lock goes through numbered generations, `launch.lock.<n>`, each created once and never by two
 * processes: a file is created complete (written under a temporary name, then hard-linked to its
 * generation's name, which fails if that name exists) and nobody else ever writes it. The highest
 * generation is the lock: held while its file names a live process, free once its holder marked it
 * released (an atomic rename over it) or died. Taking a free or stale lock is creating the next
 * generation, so when two processes find the same holder dead, one link succeeds and the other
 * fails and looks again; nobody deletes a lock another process might have just taken (deleting a
 * stale lock and creating a new one, as before, let a second process delete the first one's fresh
 * lock and both go on).
 *
 * Older generations are deleted by the next holder, all but the one just below its own: a process
 * that saw an old generation as the highest tries to create the one above it, which is either still
 * there (its link fails) or gone, and then finds a higher generation when it looks again and gives its
 * own up.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../core/process';

const PREFIX = 'launch.lock.';
const RELEASED = 'released';
const POLL_MS = 200;

/** The generations this process holds: one naming our pid and not held here is a past process's (pid reuse). */
const heldHere = new Set<string>();

/** Holds the lock of `dir` (waiting while a live process holds it); resolves with its release. */
export async function acquireLaunchLock(
  dir: string,
  onWait: (holder: number) => void,
  timeoutMs = 15 * 60_000, // a first FerretDB build can hold it for minutes
): Promise<() => void> {
  let told = false;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const top = highest(dir);
    const holder = top === 0 ? undefined : holderOf(dir, top);
    const stale =
      holder === undefined ||
      !isAlive(holder) ||
      // Our own pid, not held by this process: a crashed process's, reused (a container restarted).
      (holder === process.pid && !heldHere.has(nameOf(dir, top)));
    if (stale) {
      const mine = top + 1;
      if (create(dir, mine, String(process.pid))) {
        if (highest(dir) === mine) {
          for (const n of generations(dir)) if (n < mine - 1) fs.rmSync(nameOf(dir, n), { force: true });
          heldHere.add(nameOf(dir, mine));
          return () => {
            heldHere.delete(nameOf(dir, mine));
            create(dir, mine, RELEASED, true);
          };
        }
        // A generation above ours existed already: ours was one a later holder had deleted.
        fs.rmSync(nameOf(dir, mine), { force: true });
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another process (pid ${holder}) holds the launch lock in ${dir}`);
    if (!told) onWait(holder);
    told = true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function nameOf(dir: string, n: number): string {
  return path.join(dir, `${PREFIX}${n}`);
}

function generations(dir: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(PREFIX)) continue;
    const n = name.slice(PREFIX.length);
    if (/^[1-9][0-9]{0,14}$/.test(n)) found.push(Number(n));
  }
  return found;
}

function highest(dir: string): number {
  return Math.max(0, ...generations(dir));
}

/** The live-or-dead pid holding generation n; undefined when it was released (or deleted meanwhile). */
function holderOf(dir: string, n: number): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(nameOf(dir, n), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(text);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Writes generation n's file whole: created (false if it exists) or, with `replace`, replaced (its
 * holder releasing it). The text is written under a name of its own first, so nobody ever reads a
 * partly written lock.
 */
function create(dir: string, n: number, text: string, replace = false): boolean {
  const temp = path.join(dir, `.${PREFIX}${n}.${process.pid}.${crypto.randomBytes(6).toString('hex')}`);
  fs.writeFileSync(temp, text, { flag: 'wx' });
  try {
    if (replace) {
      fs.renameSync(temp, nameOf(dir, n));
      return true;
    }
    fs.linkSync(temp, nameOf(dir, n));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
