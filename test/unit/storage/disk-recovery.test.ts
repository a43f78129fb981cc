/**
 * Start-up recovery of the disk store on a real directory: it removes the bytes of uploads whose
 * process is gone, but never those of an upload in flight in this process. The server listens
 * before recovery runs, so an upload may have begun by then under this process's own pid.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DiskStore, HOST_TAG } from '../../../src/storage/disk';

const nothingReferenced = async (): Promise<Set<string>> => new Set();
let root: string;
let store: DiskStore;

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-disk-recovery-'));
  store = await DiskStore.open(root);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

it('keeps an upload this process began before recovery ran, which then commits whole', async () => {
  const bytes = crypto.randomBytes(100_000);
  const temp = await store.create();
  await temp.write(bytes);
  expect(await store.recover(nothingReferenced)).toBe(0);
  await temp.commit();
  await temp.settle();
  expect(fs.readFileSync(store.objectPath(temp.id)).equals(bytes)).toBe(true);
});

it("removes what an earlier process with this process's pid left (marker older than this process)", async () => {
  const id = crypto.randomBytes(16).toString('hex');
  const marker = path.join(root, 'tmp', `${HOST_TAG}-${process.pid}-${id}.part`);
  const object = store.objectPath(id);
  fs.mkdirSync(path.dirname(object), { recursive: true });
  fs.writeFileSync(object, 'left by a killed upload');
  fs.writeFileSync(marker, '');
  const before = new Date(performance.timeOrigin - 60_000);
  fs.utimesSync(marker, before, before);
  expect(await store.recover(nothingReferenced)).toBe(1);
  expect([fs.existsSync(object), fs.existsSync(marker)]).toEqual([false, false]);
});
