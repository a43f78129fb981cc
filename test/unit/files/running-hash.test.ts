/** Running hashes of resumable uploads (src/files/running-hash.ts): continued only at their offset, within a budget. */
import crypto from 'node:crypto';
import { inlineSha256, type Sha256 } from '../../../src/files/hasher';
import { RunningHashes } from '../../../src/files/running-hash';
import { SNIFF_WINDOW } from '../../../src/files/mime';

function counted(): { sha: Sha256; aborted: () => number } {
  const sha = inlineSha256();
  let n = 0;
  const abort = sha.abort.bind(sha);
  return {
    sha: Object.assign(sha, {
      abort: () => {
        n++;
        abort();
      },
    }),
    aborted: () => n,
  };
}

describe('RunningHashes', () => {
  it('continues a hash across requests and digests exactly the bytes added', async () => {
    const hashes = new RunningHashes();
    const a = crypto.randomBytes(1000);
    const b = crypto.randomBytes(700);
    const run = hashes.take('u', 0, () => inlineSha256())!;
    await run.add([a]);
    hashes.keep('u', run);
    const again = hashes.take('u', 1000, () => inlineSha256())!;
    expect(again).toBe(run);
    await again.add([b]);
    expect(again.offset).toBe(1700);
    expect(await again.digest()).toBe(crypto.createHash('sha256').update(a).update(b).digest('hex'));
    expect(again.window()).toEqual(Buffer.concat([a, b]).subarray(0, SNIFF_WINDOW));
  });

  it('has none at another offset (the bytes are read back instead), and drops the stale one', () => {
    const hashes = new RunningHashes();
    const c = counted();
    const run = hashes.take('u', 0, () => c.sha)!;
    run.add([Buffer.alloc(10)]);
    hashes.keep('u', run);
    expect(hashes.take('u', 5, () => inlineSha256())).toBeUndefined();
    expect(c.aborted()).toBe(1);
    expect(hashes.take('v', 5, () => inlineSha256())).toBeUndefined();
  });

  it('keeps within its byte budget: the least recently used hash is ended', () => {
    const hashes = new RunningHashes(3 * (SNIFF_WINDOW + 1024));
    const all = Array.from({ length: 4 }, () => counted());
    all.forEach((c, i) =>
      hashes.keep(
        `u${i}`,
        hashes.take(`u${i}`, 0, () => c.sha)!,
      ),
    );
    expect(all.map((c) => c.aborted())).toEqual([1, 0, 0, 0]);
  });
});
