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
import { JOURNAL_IDLE_MS, UploadJournal } from '../../../src/storage/upload-journal';

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

describe('the upload journal (one file per process while uploads are in flight)', () => {
  const tmpEntries = () => fs.readdirSync(path.join(root, 'tmp'));

  /** Polls until tmp/ is empty (the journal goes JOURNAL_IDLE_MS after its last upload ended). */
  const emptied = async (): Promise<string[]> => {
    for (let i = 0; i < 100 && tmpEntries().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    return tmpEntries();
  };

  it('lists an upload in flight in a journal and leaves tmp/ empty once it settled or aborted', async () => {
    const a = await store.create();
    const b = await store.create();
    const entries = tmpEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatch(new RegExp(`^${HOST_TAG}-${process.pid}-[0-9a-f]{32}\\.journal$`));
    expect(fs.readFileSync(path.join(root, 'tmp', entries[0]!), 'latin1')).toBe(`${a.id}\n${b.id}\n`);
    await a.write(Buffer.from('kept'));
    await a.commit();
    await a.settle();
    expect(tmpEntries()).toHaveLength(1); // b is still in flight
    await b.abort();
    const ended = Date.now();
    expect(await emptied()).toEqual([]);
    expect(Date.now() - ended).toBeGreaterThanOrEqual(JOURNAL_IDLE_MS - 50);
    expect(fs.readFileSync(store.objectPath(a.id), 'latin1')).toBe('kept');
    expect(fs.existsSync(store.objectPath(b.id))).toBe(false);
  });

  it('lets uploads one after another share one journal, removed once none came for its idle time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const temp = await store.create();
      ids.push(temp.id);
      await temp.write(Buffer.from(`file ${i}`));
      await temp.commit();
      await temp.settle();
    }
    const entries = tmpEntries();
    expect(entries).toHaveLength(1);
    expect(fs.readFileSync(path.join(root, 'tmp', entries[0]!), 'latin1')).toBe(ids.map((id) => `${id}\n`).join(''));
    // A crash now: recovery keeps every object metadata refers to, whatever lines the journal kept.
    expect(await emptied()).toEqual([]);
    for (const [i, id] of ids.entries()) expect(fs.readFileSync(store.objectPath(id), 'latin1')).toBe(`file ${i}`);
  });

  it("keeps the objects metadata refers to when a dead process's journal lists ended uploads", async () => {
    const journal = new UploadJournal(path.join(root, 'tmp'), `${HOST_TAG}-${process.pid}`, 10, 60_000);
    const temp = await store.create();
    await temp.write(Buffer.from('settled'));
    await temp.commit();
    await temp.settle();
    const entry = await journal.begin(temp.id);
    await entry.end();
    const [name] = tmpEntries().filter((n) => fs.readFileSync(path.join(root, 'tmp', n), 'latin1') === `${temp.id}\n`);
    expect(name).toBeDefined();
    const before = new Date(performance.timeOrigin - 60_000);
    fs.utimesSync(path.join(root, 'tmp', name!), before, before);
    const referenced = async (ids: string[]) => new Set(ids.filter((id) => id === temp.id));
    expect(await store.recover(referenced)).toBe(0);
    expect(fs.readFileSync(store.objectPath(temp.id), 'latin1')).toBe('settled');
    expect(tmpEntries()).not.toContain(name);
  });

  it("removes the unreferenced objects a dead process's journal lists, keeps referenced ones", async () => {
    const [kept, lost, never] = [0, 1, 2].map(() => crypto.randomBytes(16).toString('hex'));
    for (const id of [kept, lost]) {
      fs.mkdirSync(path.dirname(store.objectPath(id!)), { recursive: true });
      fs.writeFileSync(store.objectPath(id!), `bytes of ${id}`);
    }
    const journalName = `${HOST_TAG}-${process.pid}-${crypto.randomBytes(16).toString('hex')}.journal`;
    const journal = path.join(root, 'tmp', journalName);
    // `never`: the line was written, the process died before creating the object; then a cut-off line.
    fs.writeFileSync(journal, `${kept}\n${lost}\n${never}\n${lost!.slice(0, 7)}`);
    const before = new Date(performance.timeOrigin - 60_000);
    fs.utimesSync(journal, before, before);
    const referenced = async (ids: string[]) => new Set(ids.filter((id) => id === kept));
    expect(await store.recover(referenced)).toBe(1);
    expect([fs.existsSync(store.objectPath(kept!)), fs.existsSync(store.objectPath(lost!))]).toEqual([true, false]);
    expect(tmpEntries()).toEqual([]);
  });

  it('keeps the journal of uploads this process has in flight through recovery and collection', async () => {
    const temp = await store.create();
    await temp.write(Buffer.from('in flight'));
    expect(await store.recover(nothingReferenced)).toBe(0);
    expect(await store.collect(nothingReferenced, { full: false })).toBe(0);
    expect(tmpEntries()).toHaveLength(1);
    await temp.commit();
    await temp.settle();
    expect(fs.readFileSync(store.objectPath(temp.id), 'latin1')).toBe('in flight');
  });

  it('starts a new journal after its maximum of lines and removes each once its uploads ended', async () => {
    const journal = new UploadJournal(path.join(root, 'tmp'), `${HOST_TAG}-${process.pid}`, 2);
    const ids = [0, 1, 2].map(() => crypto.randomBytes(16).toString('hex'));
    const entries = await Promise.all(ids.map((id) => journal.begin(id)));
    const contents = () =>
      tmpEntries()
        .map((n) => fs.readFileSync(path.join(root, 'tmp', n), 'latin1'))
        .sort();
    expect(contents()).toEqual([`${ids[0]}\n${ids[1]}\n`, `${ids[2]}\n`].sort());
    await entries[0]!.end();
    await entries[0]!.end(); // idempotent: must not end another upload's place
    expect(tmpEntries()).toHaveLength(2);
    await entries[1]!.end();
    expect(contents()).toEqual([`${ids[2]}\n`]);
    await entries[2]!.end();
    expect(await emptied()).toEqual([]);
  });
});
