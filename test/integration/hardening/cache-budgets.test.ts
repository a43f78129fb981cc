/**
 * Every cache is bounded by bytes (issue 43): the comment cache (COMMENT_CACHE_BYTES), the file
 * metadata cache (FILES_METADATA_CACHE_BYTES) and the object cache (FILES_OBJECT_CACHE_BYTES) are
 * filled with four times their budget of the largest records they take, in a child process of the
 * built server with --expose-gc (test/fixtures/cache-heap.js). What is measured: heapUsed +
 * arrayBuffers after full GCs, minus the same before filling, so the cache's records and its own
 * structure; not malloc'ed memory outside V8's accounting. It must stay within the budget, with
 * 256 KiB allowed for the cache's own fixed structure and the measure's noise.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt, ROOT } from '../../helpers/dist';

interface Fill {
  budget: number;
  /** The cache's own count of its bytes. */
  cache: number;
  inserted: number;
  retained: number;
}

const MiB = 1024 * 1024;
const ALLOWANCE = 256 * 1024;

function fill(kind: string, budget: number, variant = ''): Fill {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', path.join(ROOT, 'test', 'fixtures', 'cache-heap.js'), kind, String(budget), variant],
    { encoding: 'utf8', timeout: 120_000 },
  );
  return JSON.parse(out) as Fill;
}

beforeAll(() => ensureBuilt(), 300_000);

it.each([
  ['comments', 32 * MiB, 'ascii', '50,000-character comments with their HTML and lean copies'],
  ['comments', 32 * MiB, 'two-byte', 'the same in Cyrillic (two bytes a character)'],
  ['metadata', 4 * MiB, '', 'records with 255-character names and two key hashes'],
  ['objects', 8 * MiB, '', '64 KiB objects'],
  ['objects', 8 * MiB, 'small', '100-byte objects from the shared allocation pool'],
])('%s cache, %d bytes (%s): %s keep the heap within budget', (kind, budget, variant, _what) => {
  const r = fill(kind, budget, variant);
  expect(r.inserted).toBeGreaterThanOrEqual(4 * budget);
  expect(r.retained).toBeLessThanOrEqual(budget + ALLOWANCE);
  expect(r.cache).toBeGreaterThan(0);
  expect(r.cache).toBeLessThanOrEqual(budget);
});
