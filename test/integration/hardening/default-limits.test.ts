/**
 * The limits of the default configuration (docs/files-api.md §3, issue 12): a legacy batch client
 * is never throttled — 100 uploads in a row from one address, sequential or 20 at a time, over
 * every upload route — while registration keeps its default limit. The test server helper turns
 * the per-address limits off for other test files; here they are back to their defaults ('' = unset).
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { request } from '../files/helpers';

const JSON_ACCEPT = { accept: 'application/json' };
const DEFAULTS = { FILES_UPLOAD_RATE_LIMIT: '', REGISTRATION_RATE_LIMIT: '' };

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(DEFAULTS);
});
afterAll(async () => {
  await s?.close();
});

const put = (name: string) =>
  request(s.url, 'PUT', `/upload/${name}`, { headers: JSON_ACCEPT, body: `bytes of ${name}` });
const paste = (name: string) =>
  request(s.url, 'POST', '/upload', {
    headers: {
      ...JSON_ACCEPT,
      'content-type': 'application/x-www-form-urlencoded',
      'x-requested-with': 'XMLHttpRequest',
    },
    body: `content=${name}&filename=${name}`,
  });

it('runs on the default limits (no upload rate limit, 100 concurrent uploads, 10 registrations per hour)', () => {
  expect(s.config.files).toMatchObject({ uploadRateLimit: 0, maxConcurrentUploads: 100 });
  expect(s.config.discussion).toMatchObject({ registrationRateLimit: 10, loginRateLimit: 20 });
});

it('100 uploads in a row from one address all succeed', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 100; i++) statuses.push((await (i % 2 ? paste(`seq${i}`) : put(`seq${i}.txt`))).status);
  expect(statuses).toEqual(Array(100).fill(200));
});

it('100 uploads from one address, 20 at a time, all succeed', async () => {
  const statuses: number[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => put(`par${batch}-${i}.txt`)));
    statuses.push(...rs.map((r) => r.status));
  }
  expect(statuses).toEqual(Array(100).fill(200));
});

it(`registration keeps its default limit: the 11th registration within the hour from one address gets \
429`, async () => {
  const register = (name: string) =>
    request(s.url, 'POST', '/graphql', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { register(username: "${name}", password: "a long password 1") { user { username } } }`,
      }),
    });
  for (let i = 0; i < 10; i++) expect((await register(`defaultuser${i}`)).json()).not.toHaveProperty('errors');
  const refused = await register('defaultuser10');
  expect(refused.json<{ errors: { extensions: { code: string } }[] }>().errors[0]!.extensions.code).toBe(
    'TOO_MANY_REQUESTS',
  );
});
