/**
 * A full disk (issue 18), on a real 40 MiB tmpfs holding DATA_DIR — stored files and the embedded
 * database both: uploads that cannot be stored answer 507 and keep nothing, discussion writes the
 * database refuses answer 503 in their door's format, reads keep working, /metrics counts the
 * refusals, and everything works again once space is freed, without a restart. Mounting needs
 * root: elsewhere the test says why it skipped.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseEnv, ServerProcess, startServerProcess } from '../helpers/child';
import { ensureBuilt } from '../helpers/dist';
import { databaseProcesses, gql, killHard, login } from '../helpers/embedded';
import { eventually } from './files/helpers';

jest.setTimeout(180_000);

let mountPoint: string;
let mounted = false;
let skipReason = '';
let server: ServerProcess | undefined;

beforeAll(() => {
  ensureBuilt();
  mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-full-disk-'));
  const run = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=40m', 'tmpfs', mountPoint], { encoding: 'utf8' });
  mounted = run.status === 0;
  const why = (run.stderr || run.error?.message || `exit ${run.status}`).trim();
  if (!mounted) skipReason = `cannot mount a 40 MiB tmpfs (${why}); needs root`;
});

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGINT');
    await server.exited;
  }
  for (const pid of databaseProcesses(mountPoint)) await killHard(pid);
  if (mounted) spawnSync('umount', [mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

interface Answer {
  status: number;
  text: string;
  type: string | null;
}

/**
 * One PUT. A refusal made while the client is still sending a large body (the disk filled up
 * mid-upload) must reach the client as the answer, not as EPIPE or a reset: the server reads
 * what the client still sends after answering (a lingering close, src/core/lingering-close.ts).
 */
async function put(url: string, name: string, body: Buffer, json = false): Promise<Answer> {
  const headers: Record<string, string> = json ? { accept: 'application/json' } : {};
  const r = await fetch(`${url}/upload/${name}`, { method: 'PUT', body, headers });
  return { status: r.status, text: await r.text(), type: r.headers.get('content-type') };
}

/** Fills the file system with one file until it refuses; returns the file. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

function metric(text: string, store: string): number {
  const m = new RegExp(`^storage_failures_total\\{store="${store}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

const POST_COMMENT = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id } } }';

const FULL_DISK =
  'answers 507 for uploads and 503 for discussion writes when full, keeps reading, counts, ' +
  'and recovers without a restart';

it(FULL_DISK, async () => {
  if (!mounted) {
    console.warn(`full-disk test skipped: ${skipReason}`);
    return;
  }
  server = await startServerProcess(baseEnv({ DATA_DIR: mountPoint, DEMO_SEED: 'true' }));
  const url = server.url;
  const alice = await login(url, 'alice');
  const kept = crypto.randomBytes(1024 * 1024);
  expect((await put(url, 'kept.bin', kept)).status).toBe(200);

  // Uploads until the disk is full: each one either stored whole (200) or refused with 507.
  const stored: { name: string; sha: string }[] = [{ name: 'kept.bin', sha: sha256(kept) }];
  let refused: Answer | undefined;
  for (let i = 0; i < 15 && !refused; i++) {
    const body = crypto.randomBytes(4 * 1024 * 1024);
    const r = await put(url, `big${i}.bin`, body);
    if (r.status === 200) stored.push({ name: `big${i}.bin`, sha: sha256(body) });
    else refused = r;
  }
  expect(refused).toEqual({ status: 507, text: 'Insufficient storage\n', type: 'text/plain; charset=utf-8' });
  const json = await put(url, 'json.bin', crypto.randomBytes(4 * 1024 * 1024), true);
  const jsonType = 'application/json; charset=utf-8';
  expect(json).toEqual({ status: 507, text: '{"error":"Insufficient storage"}', type: jsonType });
  // Nothing of a refused upload is kept: no temporary bytes, no metadata. (The upload journal, a
  // list of ids, goes a second after the last upload ended: storage/upload-journal.ts.)
  await eventually(() => expect(fs.readdirSync(path.join(mountPoint, 'files', 'tmp'))).toEqual([]));
  const info = await fetch(`${url}/json.bin`, { headers: { accept: 'application/json' } });
  expect([info.status, await info.text()]).toEqual([404, '{"error":"File not found"}']);

  // GraphQL: the upload is the whole operation and failed: INSUFFICIENT_STORAGE with HTTP 507.
  const form = new FormData();
  const upload = 'mutation($f: Upload!) { uploadFile(file: $f) { filename } }';
  form.append('operations', JSON.stringify({ query: upload, variables: { f: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.f'] }));
  form.append('0', new Blob([crypto.randomBytes(4 * 1024 * 1024)]), 'g.bin');
  const preflight = { 'apollo-require-preflight': 'true' };
  const g = await fetch(`${url}/graphql`, { method: 'POST', headers: preflight, body: form });
  const gBody = (await g.json()) as { data: unknown; errors: { extensions: { code: string } }[] };
  const codes = gBody.errors.map((e) => e.extensions.code);
  expect([g.status, codes, gBody.data]).toEqual([507, ['INSUFFICIENT_STORAGE'], null]);

  // Now no room at all, for the database either.
  const filler = fill(mountPoint);
  const statuses = new Set<number>();
  let graphqlRefusal: Awaited<ReturnType<typeof gql>> | undefined;
  for (let i = 0; i < 100 && !graphqlRefusal; i++) {
    const r = await gql(url, POST_COMMENT, { t: '1', m: `while full ${i} ${'x'.repeat(2000)}` }, alice);
    statuses.add(r.status);
    if (r.status !== 200) graphqlRefusal = r;
  }
  expect(graphqlRefusal?.status).toBe(503);
  expect(graphqlRefusal?.body.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
  expect([...statuses].every((s) => s === 200 || s === 503)).toBe(true);
  let betaRefusal: { status: number; body: unknown } | undefined;
  for (let i = 0; i < 20 && !betaRefusal; i++) {
    const r = await fetch(`${url}/api/beta/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"username":"bob","password":"demo-password"}',
    });
    expect([200, 503]).toContain(r.status);
    if (r.status === 503) betaRefusal = { status: r.status, body: await r.json() };
  }
  expect(betaRefusal).toEqual({ status: 503, body: [{ message: 'The database is out of space, try again later' }] });

  // With no room at all, a large upload fails on its first bytes while the client is still sending
  // nearly all of it: the 507 must reach the client all the same, never EPIPE or a reset.
  const refusedLate = 'Insufficient storage\n';
  for (let i = 0; i < 5; i++) {
    const r = await put(url, `late${i}.bin`, crypto.randomBytes(16 * 1024 * 1024));
    expect(r).toEqual({ status: 507, text: refusedLate, type: 'text/plain; charset=utf-8' });
  }

  // Reads keep working, the logged-in topic read (which records a visit) included.
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  expect((await fetch(`${url}/api/beta/topics`)).status).toBe(200);
  expect((await fetch(`${url}/api/beta/topic/1`, { headers: { authorization: `Bearer ${alice}` } })).status).toBe(200);
  expect((await gql(url, '{ topics(first: 5) { edges { node { id } } } }')).status).toBe(200);
  const download = async (name: string) => Buffer.from(await (await fetch(`${url}/selif/${name}`)).arrayBuffer());
  for (const s of stored) expect(sha256(await download(s.name))).toBe(s.sha);

  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metric(metrics, 'files')).toBeGreaterThanOrEqual(2);
  expect(metric(metrics, 'database')).toBeGreaterThanOrEqual(1);

  // Space returns: the next upload and comment succeed, without a restart.
  fs.rmSync(filler);
  const after = crypto.randomBytes(512 * 1024);
  expect((await put(url, 'after.bin', after)).status).toBe(200);
  expect(sha256(await download('after.bin'))).toBe(sha256(after));
  const c = await gql(url, POST_COMMENT, { t: '1', m: 'room again' }, alice);
  expect([c.status, c.body.errors]).toEqual([200, undefined]);
  // One stored object per stored file: no bytes of the refused uploads are left.
  const objectsDir = path.join(mountPoint, 'files', 'objects');
  const objects = fs.readdirSync(objectsDir).flatMap((d) => fs.readdirSync(path.join(objectsDir, d)));
  expect(objects).toHaveLength(stored.length + 1);

  server.child.kill('SIGINT');
  expect(await server.exited).toBe(0);
});
