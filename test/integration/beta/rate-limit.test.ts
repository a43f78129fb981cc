/** Login rate limit (docs/discussion-api.md §3.2): per address and per username, counted in MongoDB. */
import { BetaClient } from '../../helpers/beta-client';
import { PASSWORD, Factory } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
let api: BetaClient;
let f: Factory;
const LIMIT = 3;
const TOO_MANY = [{ message: 'Too many login attempts, try again later' }];

beforeAll(async () => {
  s = await startTestServer({ LOGIN_RATE_LIMIT: String(LIMIT), TRUST_PROXY: 'true' });
  api = new BetaClient(s.url);
  f = new Factory(s);
  for (const name of ['alice', 'bob', 'carol', 'dave']) await f.user(name);
});
afterAll(async () => {
  await s?.close();
});

const login = (username: string, password: string, address: string) =>
  api.post('/login', { username, password }, { headers: { 'x-forwarded-for': address } });

describe('per username', () => {
  it(`refuses the attempt after the limit, successful or not, with Retry-After until the oldest leaves the \
hour`, async () => {
    f.at('2026-03-01T12:00:00.000Z');
    expect((await login('alice', 'wrong one', '10.0.0.1')).status).toBe(401);
    f.at('2026-03-01T12:10:00.000Z');
    expect((await login('ALICE', PASSWORD, '10.0.0.2')).status).toBe(200);
    f.at('2026-03-01T12:20:00.000Z');
    expect((await login('alice', 'wrong one', '10.0.0.3')).status).toBe(401);

    f.at('2026-03-01T12:30:00.000Z');
    const refused = await login('alice', PASSWORD, '10.0.0.4');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    expect(refused.headers.get('retry-after')).toBe(String(30 * 60));

    // Refused attempts are not counted: the window frees up when the first attempt is an hour old.
    f.at('2026-03-01T12:59:59.500Z');
    expect((await login('alice', PASSWORD, '10.0.0.5')).headers.get('retry-after')).toBe('1');
    f.at('2026-03-01T13:00:00.001Z');
    expect((await login('alice', PASSWORD, '10.0.0.6')).status).toBe(200);
    expect((await login('alice', PASSWORD, '10.0.0.7')).status).toBe(429);
  });

  it('does not check credentials once limited', async () => {
    f.at('2026-03-01T12:35:00.000Z');
    // alice is limited until 13:10; right or wrong password gives 429.
    expect((await login('alice', 'wrong', '10.0.1.1')).status).toBe(429);
  });
});

describe('per address', () => {
  it('counts attempts for different usernames from one address', async () => {
    f.at('2026-03-02T12:00:00.000Z');
    expect((await login('bob', PASSWORD, '10.9.9.9')).status).toBe(200);
    expect((await login('carol', PASSWORD, '10.9.9.9')).status).toBe(200);
    expect((await login('nobody', PASSWORD, '10.9.9.9')).status).toBe(401);
    f.at('2026-03-02T12:00:10.000Z');
    const refused = await login('dave', PASSWORD, '10.9.9.9');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(3600 - 10));
    // Another address may still log in as dave.
    expect((await login('dave', PASSWORD, '10.9.9.8')).status).toBe(200);
  });

  it('does not count requests that failed body validation', async () => {
    f.at('2026-03-03T12:00:00.000Z');
    for (let i = 0; i < 5; i++)
      expect((await api.post('/login', { username: 1 }, { headers: { 'x-forwarded-for': '10.7.7.7' } })).status).toBe(
        400,
      );
    expect((await login('bob', PASSWORD, '10.7.7.7')).status).toBe(200);
  });
});

describe('other front doors', () => {
  it('logins through the service (as GraphQL calls it) count against the same counters', async () => {
    f.at('2026-03-04T12:00:00.000Z');
    for (let i = 0; i < LIMIT; i++)
      await expect(
        f.d.auth.login({ username: 'carol', password: PASSWORD, clientAddress: '10.5.5.5' }),
      ).resolves.toBeDefined();
    const refused = await login('carol', PASSWORD, '10.5.5.6');
    expect(refused.status).toBe(429);
    await expect(
      f.d.auth.login({ username: 'bob', password: PASSWORD, clientAddress: '10.5.5.5' }),
    ).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfter: 3600 });
  });

  it('keeps the counters in the database, not in the process', async () => {
    const count = await s.agora.db.conn.collection('rate_limit_attempts').countDocuments({ key: /^login:/ });
    expect(count).toBeGreaterThan(0);
  });
});
