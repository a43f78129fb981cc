/** Login, whoami and tokens (docs/discussion-api.md §2.2, §2.4, §2.5, §3). */
import crypto from 'node:crypto';
import { SYSTEM } from '../../../src/discussion';
import { BetaClient } from '../../helpers/beta-client';
import { PASSWORD, Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer, TEST_JWT_SECRET } from '../../helpers/server';

let s: TestServer;
let api: BetaClient;
let f: Factory;
let bob: TestUser;

const INVALID_TOKEN = [{ message: 'Invalid or expired token', exception: 'InvalidTokenError' }];
const BAD_CREDENTIALS = [{ message: 'Invalid username or password', exception: 'AuthenticationError' }];

beforeAll(async () => {
  s = await startTestServer({ LOGIN_RATE_LIMIT: '1000' });
  api = new BetaClient(s.url);
  f = new Factory(s);
  bob = await f.user('Bob');
});
afterAll(async () => {
  await s?.close();
});

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
function handMade(header: object, payload: object, secret = TEST_JWT_SECRET): string {
  const head = `${b64(header)}.${b64(payload)}`;
  return `${head}.${crypto.createHmac('sha256', secret).update(head).digest('base64url')}`;
}
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('POST /login', () => {
  it('returns a token for the right password, the username matched case-insensitively', async () => {
    const res = await api.post('/login', { username: 'bOB', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['token']);
    const [h, p] = res.body.token.split('.');
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    expect(Object.keys(claims)).toEqual(['sub', 'username', 'iat', 'exp', 'tv']);
    expect(claims).toMatchObject({ sub: String(bob.id), username: 'Bob', tv: 0 });
    expect(claims.exp - claims.iat).toBe(30 * 86400);
    const who = await api.get('/whoami', { token: res.body.token });
    expect(who.body).toEqual({ msg: 'Bob' });
  });

  it('gives unknown users, wrong passwords and deleted accounts the same answer', async () => {
    const gone = await f.user('gone');
    await f.d.users.deleteAccount(gone.actor, PASSWORD);
    for (const body of [
      { username: 'nobody', password: PASSWORD },
      { username: 'bob', password: 'wrong password' },
      { username: 'gone', password: PASSWORD },
      { username: '', password: '' },
    ]) {
      const res = await api.post('/login', body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(BAD_CREDENTIALS);
    }
  });

  it('tells a banned user so only after the password verified', async () => {
    await f.user('banned1');
    await f.d.users.ban(SYSTEM, 'banned1');
    const wrong = await api.post('/login', { username: 'banned1', password: 'nope nope' });
    expect(wrong.body).toEqual(BAD_CREDENTIALS);
    const right = await api.post('/login', { username: 'banned1', password: PASSWORD });
    expect(right.status).toBe(401);
    expect(right.body).toEqual([{ message: 'That account has been banned', exception: 'AuthenticationError' }]);
  });

  describe('body validation (2.4)', () => {
    const NOT_JSON = [{ exception: 'ValidationError', message: 'Request body is not valid JSON' }];
    it.each(['', 'not json', '{"username":', '[]', '"text"', '42', 'null', '[{"username":"a"}]'])(
      '%p → exactly one "not valid JSON" item',
      async (raw) => {
        const res = await api.post('/login', raw);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(NOT_JSON);
      },
    );

    it('lists missing properties, username first', async () => {
      const res = await api.post('/login', {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual([
        { exception: 'ValidationError', message: "'username' is a required property", field: 'username' },
        { exception: 'ValidationError', message: "'password' is a required property", field: 'password' },
      ]);
    });

    it.each([
      [123, '123'],
      [true, 'True'],
      [false, 'False'],
      [null, 'None'],
      [[1, 2], '[1, 2]'],
      [{ a: 1 }, "{'a': 1}"],
      [1.5, '1.5'],
      [["it's"], `["it's"]`],
    ])('writes a non-string %p as %s', async (value, repr) => {
      const res = await api.post('/login', { username: value, password: 'x' });
      expect(res.body).toEqual([
        { exception: 'ValidationError', message: `${repr} is not of type 'string'`, field: 'username' },
      ]);
    });

    it('checks both properties and ignores extra ones', async () => {
      const res = await api.post('/login', { username: 1, extra: true });
      expect(res.body).toEqual([
        { exception: 'ValidationError', message: "1 is not of type 'string'", field: 'username' },
        { exception: 'ValidationError', message: "'password' is a required property", field: 'password' },
      ]);
      const ok = await api.post('/login', { username: 'bob', password: PASSWORD, remember: 'yes' });
      expect(ok.status).toBe(200);
    });

    it('writes numbers as json.loads reads them, and answers 400 to a value nested 5,000 deep', async () => {
      const send = (body: string) =>
        api.request('POST', '/login', { body, headers: { 'content-type': 'application/json' } });
      const exact = await send('{"username": 12345678901234567890123, "password": 1.0}');
      expect([exact.status, exact.body]).toEqual([
        400,
        [
          {
            exception: 'ValidationError',
            message: "12345678901234567890123 is not of type 'string'",
            field: 'username',
          },
          { exception: 'ValidationError', message: "1.0 is not of type 'string'", field: 'password' },
        ],
      ]);
      const deep = await send(`{"username": ${'['.repeat(5000)}${']'.repeat(5000)}, "password": "x"}`);
      expect(deep.status).toBe(400);
      expect(deep.body).toEqual([
        {
          exception: 'ValidationError',
          message: `${'['.repeat(5000)}${']'.repeat(5000)} is not of type 'string'`,
          field: 'username',
        },
      ]);
    });

    it('does not look at the Content-Type', async () => {
      const body = JSON.stringify({ username: 'bob', password: PASSWORD });
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'garbage',
        'multipart/form-data; boundary=x',
        undefined,
      ]) {
        const res = await api.request('POST', '/login', { body, headers: type ? { 'content-type': type } : {} });
        expect(res.status).toBe(200);
      }
      const bad = await api.request('POST', '/login', {
        body: 'username=bob',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(bad.status).toBe(400);
    });

    it('refuses an oversized body cleanly', async () => {
      const res = await api.post('/login', { username: 'bob', password: 'x'.repeat(100_000) });
      expect(res.status).toBe(413);
      expect(res.body).toEqual([{ message: 'Request body is too large' }]);
    });
  });

  it('checks the Authorization header before the body (2.2)', async () => {
    const res = await api.post('/login', 'not json', { token: 'bad' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(INVALID_TOKEN);
  });
});

describe('GET /whoami', () => {
  it('requires a token', async () => {
    const res = await api.get('/whoami');
    expect(res.status).toBe(401);
    expect(res.body).toEqual([{ message: 'Authentication required', exception: 'AuthenticationError' }]);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('invalid tokens → 401 InvalidTokenError on every endpoint', () => {
  const endpoints: [string, string][] = [
    ['GET', '/whoami'],
    ['GET', '/topics'],
    ['GET', '/topics?limit=abc'],
    ['GET', '/topic/1'],
    ['GET', '/topic/0'],
    ['GET', '/user/bob'],
    ['GET', '/user/bob/topics'],
    ['GET', '/user/bob/comments'],
    ['POST', '/login'],
  ];

  async function expectRejected(authorization: string) {
    for (const [method, path] of endpoints) {
      const res = await api.request(method, path, {
        headers: { authorization },
        body: method === 'POST' ? JSON.stringify({ username: 'bob', password: PASSWORD }) : undefined,
      });
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.body).toEqual(INVALID_TOKEN);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
  }

  it('malformed headers: other schemes, empty, a scheme without token', async () => {
    for (const h of ['', 'Bearer', 'Bearer ', 'Basic Ym9iOnB3', 'Token abc', 'x.y.z', 'Bearer x.y.z', 'Bearer a.b'])
      await expectRejected(h);
  });

  it('a badly signed or tampered token', async () => {
    const valid = await bob.tokenNow();
    const [h, p, sig] = valid.split('.');
    const claims = { sub: String(bob.id), username: 'Bob', iat: nowSeconds(), exp: nowSeconds() + 60, tv: 0 };
    await expectRejected(
      `Bearer ${handMade({ alg: 'HS256', typ: 'JWT' }, claims, 'another-secret-another-secret-1234')}`,
    );
    const forged = b64({ sub: '1', username: 'admin', iat: nowSeconds(), exp: nowSeconds() + 60, tv: 0 });
    await expectRejected(`Bearer ${h}.${forged}.${sig}`);
    await expectRejected(`Bearer ${h}.${p}.${sig!.slice(0, -4)}AAAA`);
  });

  it('alg none and other algorithms', async () => {
    const claims = { sub: String(bob.id), username: 'Bob', iat: nowSeconds(), exp: nowSeconds() + 60, tv: 0 };
    await expectRejected(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`);
    await expectRejected(`Bearer ${handMade({ alg: 'HS512', typ: 'JWT' }, claims)}`);
    await expectRejected(`Bearer ${handMade({ alg: 'RS256', typ: 'JWT' }, claims)}`);
  });

  it('an expired token', async () => {
    const expired = { sub: String(bob.id), username: 'Bob', iat: nowSeconds() - 100, exp: nowSeconds() - 1, tv: 0 };
    await expectRejected(`Bearer ${handMade({ alg: 'HS256', typ: 'JWT' }, expired)}`);
    const t = await bob.tokenNow();
    f.at(new Date(Date.now() + 31 * 86400 * 1000));
    try {
      await expectRejected(`Bearer ${t}`);
    } finally {
      f.at(null);
    }
  });

  it('a token of an unknown user or with missing claims', async () => {
    const unknown = { sub: '999999', username: 'x', iat: nowSeconds(), exp: nowSeconds() + 60, tv: 0 };
    await expectRejected(`Bearer ${handMade({ alg: 'HS256', typ: 'JWT' }, unknown)}`);
    const noVersion = { sub: String(bob.id), username: 'Bob', iat: nowSeconds(), exp: nowSeconds() + 60 };
    await expectRejected(`Bearer ${handMade({ alg: 'HS256', typ: 'JWT' }, noVersion)}`);
  });

  it('revoked tokens: log out everywhere and password changes', async () => {
    const carol = await f.user('carol');
    const before = await carol.tokenNow();
    expect((await api.get('/whoami', { token: before })).status).toBe(200);
    await f.d.auth.logoutEverywhere(carol.actor);
    await expectRejected(`Bearer ${before}`);
    const second = (await api.post('/login', { username: 'carol', password: PASSWORD })).body.token;
    expect((await api.get('/whoami', { token: second })).status).toBe(200);
    const changed = await f.d.auth.changePassword(carol.actor, {
      currentPassword: PASSWORD,
      newPassword: 'a new password',
    });
    await expectRejected(`Bearer ${second}`);
    expect((await api.get('/whoami', { token: changed.token })).body).toEqual({ msg: 'carol' });
    expect((await api.post('/login', { username: 'carol', password: PASSWORD })).status).toBe(401);
    expect((await api.post('/login', { username: 'carol', password: 'a new password' })).status).toBe(200);
  });

  it('tokens of users banned or deleted after issue', async () => {
    const dave = await f.user('dave');
    const t1 = await dave.tokenNow();
    await f.d.users.ban(SYSTEM, 'dave');
    await expectRejected(`Bearer ${t1}`);
    await f.d.users.unban(SYSTEM, 'dave');
    expect((await api.get('/whoami', { token: t1 })).status).toBe(200);
    const erin = await f.user('erin');
    const t2 = await erin.tokenNow();
    await f.d.users.deleteAccount(erin.actor, PASSWORD);
    await expectRejected(`Bearer ${t2}`);
  });

  it('reports the token before validation errors', async () => {
    const res = await api.get('/topics?limit=abc&order=hot', { token: 'nope' });
    expect(res.status).toBe(401);
  });
});

describe('whoami shows the stored letter case', () => {
  it('even when the login used another case', async () => {
    const login = await api.post('/login', { username: 'BOB', password: PASSWORD });
    expect((await api.get('/whoami', { token: login.body.token })).body).toEqual({ msg: 'Bob' });
  });
});
