/**
 * An upload whose metadata write fails without a known outcome — the database killed or unreachable
 * before it replied, its journal sync failing after the commit — may have been stored all the same.
 * Its bytes must then not be removed at once (the record would point at nothing: found by
 * bench/chaos.js, 7 files of 8,577 after database kills): they stay until metadata says whether the
 * write landed, and go only if it did not (src/files/upload.service.ts, resolveLater). For an
 * overwrite, the bytes the file held before go once the re-check finds that the switch landed.
 */
import mongoose from 'mongoose';
import { BACKENDS, client, eventually, JSON_ACCEPT, metadata, startFor, storeCounts } from './helpers';
import type { TestServer } from '../../helpers/server';
import type { FileRepository } from '../../../src/files/file.repository';

/** The error the driver raises when the database's connection closes before its reply. */
function lostReply(): Error {
  return new mongoose.mongo.MongoNetworkError('connection 7 to 127.0.0.1:27017 closed');
}

describe.each(BACKENDS)('%s backend', (backend) => {
  let s: TestServer;
  let repo: FileRepository;
  beforeAll(async () => {
    s = await startFor(backend);
    const uploads = s.agora.services.files.uploads;
    uploads.recheckAfterMs = 150;
    repo = (uploads as unknown as { repo: FileRepository }).repo;
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it('a write that landed before its reply was lost keeps its bytes: the file is whole', async () => {
    const insert = repo.insert.bind(repo);
    jest.spyOn(repo, 'insert').mockImplementationOnce(async (name, content) => {
      await insert(name, content);
      throw lostReply();
    });
    const before = await storeCounts(s);
    const res = await client(s).put('/upload/landed.txt', 'bytes that were stored', JSON_ACCEPT);
    expect(res.status).toBe(503);
    expect((await metadata(s)).map((m) => m._id)).toContain('landed.txt');
    // Now and after the re-check, which finds the record and keeps the bytes.
    for (const wait of [0, 600]) {
      await new Promise((r) => setTimeout(r, wait));
      const got = await client(s).get('/selif/landed.txt');
      expect(got.status).toBe(200);
      expect(got.text).toBe('bytes that were stored');
    }
    expect((await storeCounts(s)).objects).toBe(before.objects + 1);
  });

  it('a write that did not land leaves nothing once the re-check found no record', async () => {
    jest.spyOn(repo, 'insert').mockRejectedValueOnce(lostReply());
    const before = await storeCounts(s);
    const res = await client(s).put('/upload/lost.txt', 'bytes nobody refers to', JSON_ACCEPT);
    expect(res.status).toBe(503);
    expect((await metadata(s)).map((m) => m._id)).not.toContain('lost.txt');
    // Kept until the re-check (it could not know yet), then removed.
    expect((await storeCounts(s)).objects).toBe(before.objects + 1);
    await eventually(async () => expect((await storeCounts(s)).objects).toBe(before.objects), 5000);
    expect((await client(s).get('/selif/lost.txt')).status).toBe(404);
  });

  it('an overwrite that landed before its reply was lost: the old bytes go at the re-check', async () => {
    const first = await client(s).put('/upload/swapped.txt', 'old bytes', { ...JSON_ACCEPT, 'Linx-Delete-Key': 'k3y' });
    expect(first.status).toBe(200);
    const before = await storeCounts(s);
    const replace = repo.replaceContent.bind(repo);
    jest.spyOn(repo, 'replaceContent').mockImplementationOnce(async (...args) => {
      await replace(...args);
      throw lostReply();
    });
    const res = await client(s).put('/upload/swapped.txt', 'new bytes', { ...JSON_ACCEPT, 'Linx-Delete-Key': 'k3y' });
    expect(res.status).toBe(503);
    // Both kept until the re-check could tell which one the file holds.
    expect((await storeCounts(s)).objects).toBe(before.objects + 1);
    await eventually(async () => expect((await storeCounts(s)).objects).toBe(before.objects), 5000);
    const got = await client(s).get('/selif/swapped.txt');
    expect(got.status).toBe(200);
    expect(got.text).toBe('new bytes');
  });

  it('an overwrite that did not land: the new bytes go at the re-check, the file keeps its old ones', async () => {
    const first = await client(s).put('/upload/kept.txt', 'old bytes', { ...JSON_ACCEPT, 'Linx-Delete-Key': 'k3y' });
    expect(first.status).toBe(200);
    const before = await storeCounts(s);
    jest.spyOn(repo, 'replaceContent').mockRejectedValueOnce(lostReply());
    const res = await client(s).put('/upload/kept.txt', 'new bytes', { ...JSON_ACCEPT, 'Linx-Delete-Key': 'k3y' });
    expect(res.status).toBe(503);
    expect((await storeCounts(s)).objects).toBe(before.objects + 1);
    await eventually(async () => expect((await storeCounts(s)).objects).toBe(before.objects), 5000);
    // Past the re-check: the old bytes are still the file's.
    await new Promise((r) => setTimeout(r, 400));
    const got = await client(s).get('/selif/kept.txt');
    expect(got.status).toBe(200);
    expect(got.text).toBe('old bytes');
  });

  it('a refusal of ours (a name error) removes the bytes at once, as before', async () => {
    const before = await storeCounts(s);
    const res = await client(s).put('/upload/' + 'n'.repeat(300) + '.txt', 'x', JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect((await storeCounts(s)).objects).toBe(before.objects);
  });
});
