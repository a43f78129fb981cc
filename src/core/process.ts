/** Facts about other processes on this host. */
import fs from 'node:fs';

/**
 * Whether a process with that pid exists here (EPERM: it exists but belongs to another user). A
 * zombie — exited, not yet reaped by its parent — counts as gone: a killed database whose launching
 * server died too is reparented, and until its new parent reaps it, signal 0 still reaches it.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // no procfs (not Linux), or gone meanwhile: signal 0 decided
  }
  // "pid (comm) S …": comm may hold spaces and parentheses, the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** The command line of a process (empty when it is gone or unreadable). */
export function commandLine(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}
