/**
 * For tests that run real server processes on the embedded database and kill things: the record
 * in DATA_DIR/db/server.json, the database processes that use a DATA_DIR, readiness, and the few
 * GraphQL calls that make acknowledged writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../../src/core/process';

export interface DbRecord {
  kind: string;
  uri: string;
  pid: number;
  ownerPid: number;
  adoptedAt?: string;
}

export function readRecord(dataDir: string): DbRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'db', 'server.json'), 'utf8')) as DbRecord;
  } catch {
    return undefined;
  }
}

export function portOf(uri: string): number {
  return Number(new URL(uri).port);
}

/** Pids of live processes whose command line names `dataDir`'s database directory (ps, by hand). */
export function databaseProcesses(dataDir: string): number[] {
  const dbDir = path.join(dataDir, 'db');
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd: string;
    try {
      cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes(dbDir) && isAlive(Number(entry))) found.push(Number(entry));
  }
  return found;
}

/** Kills with SIGKILL and waits until the process is gone. */
export async function killHard(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(10);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls /readyz until 200; resolves with the milliseconds it took, or rejects after timeoutMs. */
export async function waitReady(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < timeoutMs) {
    try {
      const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) });
      last = `${r.status} ${await r.text()}`;
      if (r.status === 200) return Date.now() - started;
    } catch (err) {
      last = String(err);
    }
    await sleep(100);
  }
  throw new Error(`not ready within ${timeoutMs} ms (last: ${last})`);
}

/** Waits until `check` holds, polling; rejects with `what` after timeoutMs. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

export interface GqlResult {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };
}

export async function gql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<GqlResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const r = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: r.status, body: (await r.json()) as GqlResult['body'] };
}

/** Logs a demo user in (DEMO_SEED): its token. */
export async function login(url: string, username: string): Promise<string> {
  const r = await fetch(`${url}/api/beta/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'demo-password' }),
  });
  if (r.status !== 200) throw new Error(`login ${username}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { token: string }).token;
}
