/**
 * The launch lock (src/db/launch-lock.ts) between real processes: in every round a process takes
 * the lock and is killed holding it, then two processes race to take the stale lock over at the
 * same moment. Each marks a file as its own while it holds the lock (created exclusively): never
 * may both hold it at once, and both get it in turn.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ensureBuilt, ROOT } from '../helpers/dist';

jest.setTimeout(180_000);

const ROUNDS = 40;
const LOCK_MODULE = path.join(ROOT, 'dist', 'db', 'launch-lock.js');

/** mode "holder": take the lock, say so, and wait to be killed; "racer": one take per "go" line. */
const CHILD = `
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { acquireLaunchLock } = require(process.env.LOCK_MODULE);
const [dir, mode] = process.argv.slice(1);
const mark = path.join(dir, 'inside');
async function take() {
  const release = await acquireLaunchLock(dir, () => {}, 60_000);
  let mine = false;
  try {
    fs.writeFileSync(mark, String(process.pid), { flag: 'wx' });
    mine = true;
  } catch {
    console.log('overlap with ' + fs.readFileSync(mark, 'utf8'));
  }
  await new Promise((r) => setTimeout(r, 20));
  if (mine) fs.rmSync(mark);
  release();
}
if (mode === 'holder') {
  acquireLaunchLock(dir, () => {}, 60_000).then(() => console.log('held'));
  setInterval(() => {}, 1000);
} else {
  readline.createInterface({ input: process.stdin }).on('line', () => take().then(() => console.log('done')));
}
`;

interface Child {
  child: ChildProcess;
  lines: string[];
  next(match: (line: string) => boolean): Promise<string>;
}

function start(dir: string, mode: 'holder' | 'racer'): Child {
  const child = spawn(process.execPath, ['-e', CHILD, dir, mode], {
    env: { ...process.env, LOCK_MODULE },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters.splice(0)) w();
  });
  let read = 0;
  return {
    child,
    lines,
    async next(match) {
      for (;;) {
        while (read < lines.length) {
          const l = lines[read++]!;
          if (match(l)) return l;
        }
        await new Promise<void>((r) => waiters.push(r));
      }
    },
  };
}

let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-lock-'));
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

it(`two processes taking over a dead holder's lock at once never both hold it (${ROUNDS} rounds)`, async () => {
  const racers = [start(dir, 'racer'), start(dir, 'racer')];
  children.push(...racers.map((r) => r.child));
  for (let round = 0; round < ROUNDS; round++) {
    const holder = start(dir, 'holder');
    children.push(holder.child);
    await holder.next((l) => l === 'held');
    const gone = new Promise((r) => holder.child.once('exit', r));
    holder.child.kill('SIGKILL');
    await gone;
    // Both find the killed holder's lock and take it over at the same moment.
    for (const r of racers) r.child.stdin!.write('go\n');
    await Promise.all(racers.map((r) => r.next((l) => l === 'done')));
  }
  expect(racers.flatMap((r) => r.lines.filter((l) => l !== 'done'))).toEqual([]);
  // Old generations are cleared as the lock moves on.
  expect(fs.readdirSync(dir).filter((n) => n.startsWith('launch.lock')).length).toBeLessThanOrEqual(2);
});
