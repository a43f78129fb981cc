/**
 * Limits hold under concurrency (issue 43): a limited attempt takes its place in the counter
 * before it is evaluated, so hundreds of attempts sent at once over real HTTP are evaluated at
 * most `limit` times, per client address and per username; the rest are refused with 429 and
 * Retry-After. TRUST_PROXY makes X-Forwarded-For name the client address, so one test process can
 * be many clients.
 */
import { Factory, PASSWORD } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

const LOGIN_LIMIT = 20;
const REGISTRATION_LIMIT = 10;
const TOO_MANY_LOGINS = [{ message: 'Too many login attempts, try again later' }];

let s: TestServer;
let f: Factory;

beforeAll(async () => {
  s = await startTestServer({
    LOGIN_RATE_LIMIT: String(LOGIN_LIMIT),
    REGISTRATION_RATE_LIMIT: String(REGISTRATION_LIMIT),
    TRUST_PROXY: 'true',
  });
  f = new Factory(s);
  await f.user('target');
});
afterAll(async () => {
  await s?.close();
});

interface Outcome {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function login(username: string, password: string, address: string): Promise<Outcome> {
  const res = await fetch(`${s.url}/api/beta/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

/** Sends every attempt at once and sorts the answers: evaluated (any status but 429) and refused. */
async function burst(n: number, attempt: (i: number) => Promise<Outcome>) {
  const outcomes = await Promise.all(Array.from({ length: n }, (_, i) => attempt(i)));
  const refused = outcomes.filter((o) => o.status === 429);
  const evaluated = outcomes.filter((o) => o.status !== 429);
  for (const o of refused) expect(o.retryAfter).toMatch(/^[1-9][0-9]*$/);
  return { outcomes, refused, evaluated };
}

describe('login limit under a burst (LOGIN_RATE_LIMIT=20)', () => {
  it('300 concurrent guesses at one username from one address: at most 20 evaluated, the rest 429', async () => {
    // The right password is among the guesses, late: a burst must not reach it.
    const { evaluated, refused } = await burst(300, (i) =>
      login('target', i === 250 ? PASSWORD : `guess ${i}`, '10.43.0.1'),
    );
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(LOGIN_LIMIT);
    for (const o of evaluated) expect(o.status).toBe(401);
    expect(refused.length).toBe(300 - evaluated.length);
    for (const o of refused) expect(o.body).toEqual(TOO_MANY_LOGINS);
    // Nothing more gets through afterwards, from anywhere, for that username.
    expect((await login('target', PASSWORD, '10.43.0.2')).status).toBe(429);
  });

  it('150 concurrent attempts at distinct usernames from one address: at most 20 evaluated', async () => {
    const { evaluated } = await burst(150, (i) => login(`someone${i}`, 'guess', '10.43.1.1'));
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(LOGIN_LIMIT);
    for (const o of evaluated) expect(o.status).toBe(401);
  });

  it('100 concurrent attempts at one username from 100 addresses: at most 20 evaluated', async () => {
    await f.user('second');
    const { evaluated } = await burst(100, (i) => login('second', `guess ${i}`, `10.43.2.${i + 1}`));
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(LOGIN_LIMIT);
  });

  it('the counters hold no more attempts than the limit', async () => {
    const rows = await s.agora.db.conn
      .collection('rate_limit_attempts')
      .aggregate([{ $group: { _id: '$key', n: { $sum: 1 } } }])
      .toArray();
    for (const r of rows) expect(r.n).toBeLessThanOrEqual(LOGIN_LIMIT);
  });
});

const REGISTER =
  'mutation Register($username: String!, $password: String!) { register(username: $username, password: ' +
  '$password) { token } }';

describe('registration limit under a burst (REGISTRATION_RATE_LIMIT=10)', () => {
  it('100 concurrent registrations from one address: at most 10 accounts, the rest 429', async () => {
    const { evaluated, refused } = await burst(100, async (i) => {
      const res = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.43.3.1' },
        body: JSON.stringify({
          query: REGISTER,
          variables: { username: `burst${i}`, password: 'long enough password' },
        }),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    });
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.length).toBeLessThanOrEqual(REGISTRATION_LIMIT);
    for (const o of refused)
      expect(o.body).toMatchObject({
        errors: [{ extensions: { code: 'TOO_MANY_REQUESTS', reason: 'REGISTRATION_RATE_LIMITED' } }],
      });
    const created = await s.agora.db.conn.collection('users').countDocuments({ usernameLower: /^burst/ });
    expect(created).toBe(evaluated.length);
  });
});
