/**
 * The limit on wrong keys (issue 43, src/files/key-checks.ts): client-chosen access and delete keys
 * are checked with scrypt, so wrong ones are counted per client address and per file, before the
 * check runs; beyond FILES_KEY_CHECK_LIMIT within the window the check is refused with 429 and
 * Retry-After in the files API's error format (files-behaviour §3), however many arrive at once.
 * Right keys are never counted. Real HTTP, TRUST_PROXY for distinct client addresses.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { JSON_ACCEPT, request, Res } from './helpers';

const LIMIT = 30;
// The files API's message for a 429 without a message of its own (src/rest/files/errors.ts).
const TOO_MANY = 'Too many requests';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    FILES_KEY_CHECK_LIMIT: String(LIMIT),
    FILES_KEY_CHECK_WINDOW: '600',
    TRUST_PROXY: 'true',
  });
});
afterAll(async () => {
  await s?.close();
});

const from = (address: string) => ({ 'x-forwarded-for': address });

async function upload(name: string, headers: Record<string, string>): Promise<void> {
  const r = await request(s.url, 'PUT', `/upload/${name}`, { headers: { ...JSON_ACCEPT, ...headers }, body: 'secret' });
  expect(r.status).toBe(200);
}

const read = (name: string, key: string, address: string, accept = JSON_ACCEPT) =>
  request(s.url, 'GET', `/selif/${name}`, { headers: { ...accept, 'files-access-key': key, ...from(address) } });

const del = (name: string, key: string, address: string) =>
  request(s.url, 'DELETE', `/${name}`, { headers: { ...JSON_ACCEPT, 'files-delete-key': key, ...from(address) } });

function sort(answers: Res[], wrongStatus = 401) {
  const refused = answers.filter((a) => a.status === 429);
  const evaluated = answers.filter((a) => a.status !== 429);
  for (const a of refused) {
    expect(a.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(600);
  }
  for (const a of evaluated) expect(a.status).toBe(wrongStatus);
  return { refused, evaluated };
}

describe('wrong access keys', () => {
  it('100 concurrent wrong keys from one address: at most the limit checked, the rest 429 (JSON)', async () => {
    await upload('locked.txt', { 'files-access-key': 'right key' });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => read('locked.txt', `wrong ${i}`, '10.8.0.1')),
    );
    const { refused, evaluated } = sort(answers);
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(LIMIT);
    for (const a of evaluated) expect(a.json()).toEqual({ error: 'Invalid access key' });
    for (const a of refused) {
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(a.text).toBe(JSON.stringify({ error: TOO_MANY }));
    }
    // The address is limited on other files too, in the text format when JSON is not preferred.
    await upload('other.txt', { 'files-access-key': 'other key' });
    const text = await read('other.txt', 'nope', '10.8.0.1', { accept: '*/*' });
    expect(text.status).toBe(429);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.text).toBe(`${TOO_MANY}\n`);
  });

  it('wrong keys for one file from 100 addresses at once: at most the limit checked', async () => {
    await upload('target.txt', { 'files-access-key': 'target key' });
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => read('target.txt', `guess ${i}`, `10.8.1.${i + 1}`)),
    );
    const { evaluated } = sort(answers);
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(LIMIT);
  });

  it('right keys are never counted: 80 reads with the right key from one address all succeed', async () => {
    await upload('mine.txt', { 'files-access-key': 'my key' });
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => read('mine.txt', 'my key', '10.8.2.1')));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    }
  });
});

describe('wrong delete keys', () => {
  it(`100 concurrent wrong client-chosen delete keys from one address: at most the limit checked; the file \
stays`, async () => {
    await upload('keep.txt', { 'files-delete-key': 'the delete key' });
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => del('keep.txt', `wrong ${i}`, '10.8.3.1')));
    const { evaluated } = sort(answers);
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(LIMIT);
    for (const a of evaluated) expect(a.json()).toEqual({ error: 'Invalid delete key' });
    expect((await request(s.url, 'GET', '/selif/keep.txt')).status).toBe(200);
  });
});
