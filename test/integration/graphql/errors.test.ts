/**
 * Error codes and HTTP statuses of /graphql: BAD_USER_INPUT with the offending argument,
 * UNAUTHENTICATED (401), FORBIDDEN (403), NOT_FOUND, CONFLICT, TOO_MANY_REQUESTS (429), and
 * unexpected errors masked as INTERNAL_SERVER_ERROR with the detail only in the log.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';
import { SYSTEM } from '../../../src/discussion';
import { gql, rest } from './helpers';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  s = await startTestServer({ LOGIN_RATE_LIMIT: '2' });
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  await f.group('tech');
});
afterAll(async () => s?.close());

describe('UNAUTHENTICATED (HTTP 401)', () => {
  it.each([['Bearer x.y.z'], ['Basic abc'], ['Bearer'], ['']])(
    'an invalid Authorization header (%j) fails the whole request',
    async (value) => {
      const r = await gql(s, '{ groups { path } }', {}, undefined, { authorization: value });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.body.errors?.[0]).toMatchObject({
        message: 'Invalid or expired token',
        extensions: { code: 'UNAUTHENTICATED' },
      });
      expect(r.body.data ?? null).toBeNull();
    },
  );

  it('a mutation that needs a login, sent anonymously', async () => {
    const r = await gql(s, 'mutation { voteTopic(id: "1") { id } }');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('FORBIDDEN (HTTP 403)', () => {
  it('an admin mutation by a user', async () => {
    const r = await gql(s, 'mutation { createGroup(path: "x") { path } }', {}, alice.token);
    expect(r.status).toBe(403);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('partly applied mutations (HTTP 200, what was applied is in data)', () => {
  it('a vote applied before a refused lockTopic: 200, the vote in data, the error at b', async () => {
    const t = await f.topic(alice);
    const r = await gql(
      s,
      `mutation { a: voteTopic(id: "${t.id36}") { id voteCount } b: lockTopic(id: "${t.id36}") { id isLocked } }`,
      {},
      bob.token,
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('www-authenticate')).toBeNull();
    expect(r.body.data).toEqual({ a: { id: expect.any(String), voteCount: 1 }, b: null });
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors?.[0]).toMatchObject({ path: ['b'], extensions: { code: 'FORBIDDEN' } });
    expect((await rest(s, `/topic/${t.id36}`)).body.topic.vote_count).toBe(1);
  });

  it('a refusal before an applied field: the applied one is kept too', async () => {
    const t = await f.topic(alice);
    const r = await gql(
      s,
      `mutation { b: lockTopic(id: "${t.id36}") { id } a: bookmarkTopic(id: "${t.id36}") { viewerHasBookmarked } }`,
      {},
      bob.token,
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ b: null, a: { viewerHasBookmarked: true } });
  });

  it('data is null only when nothing changed: every field refused at that field', async () => {
    const t = await f.topic(alice);
    const r = await gql(
      s,
      `mutation { a: lockTopic(id: "${t.id36}") { id } b: setTopicOfficial(id: "${t.id36}") { id } }`,
      {},
      bob.token,
    );
    expect(r.status).toBe(403);
    expect(r.body.data).toBeNull();
    expect(r.body.errors?.map((e) => e.path)).toEqual([['a'], ['b']]);
  });

  it('a query with data keeps 200 next to a FORBIDDEN field', async () => {
    const carol = await f.user('carolx');
    await f.d.users.ban(SYSTEM, carol.username);
    const r = await gql(
      s,
      `{ groups { path } user(username: "${carol.username}") { history(first: 1) { nodes { __typename } } } }`,
    );
    expect(r.status).toBe(200);
    expect(r.body.data?.groups).toEqual(expect.any(Array));
    expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('batches: 200 when any operation produced data', () => {
  let b: TestServer;
  let member: TestUser;
  beforeAll(async () => {
    b = await startTestServer({ GRAPHQL_BATCHING: 'true' });
    member = await new Factory(b).user('batcher');
  });
  afterAll(async () => b?.close());

  it.each([
    ['a query first', true],
    ['the refused mutation first', false],
  ])('a query and a refused mutation in one batch (%s)', async (_, queryFirst) => {
    const ops = [{ query: '{ serverInfo { version } }' }, { query: 'mutation { createGroup(path: "nope") { path } }' }];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${b.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${member.token}` },
        body: JSON.stringify(queryFirst ? ops : [...ops].reverse()),
      });
      const body = (await res.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] }[];
      expect(res.status).toBe(200);
      const refused = body.find((x) => x.errors);
      expect(refused).toMatchObject({ data: null, errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    }
  });
});

describe('NOT_FOUND and CONFLICT (HTTP 200 with the error, partial data kept)', () => {
  it('NOT_FOUND for a mutation on an unknown topic, next to data that resolved', async () => {
    const r = await gql(s, 'mutation { a: bookmarkTopic(id: "zzzzzz") { id } }', {}, bob.token);
    expect(r.status).toBe(200);
    expect(r.body.errors?.[0]).toMatchObject({
      message: 'Topic not found',
      path: ['a'],
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('CONFLICT for a name that is taken', async () => {
    const r = await gql(s, 'mutation { register(username: "Alice", password: "long enough pw") { token } }');
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT' });
  });
});

describe('BAD_USER_INPUT', () => {
  it('names the offending argument, and lists every problem', async () => {
    const r = await gql(s, '{ topics(first: 500, period: "soon", tag: "a..b") { edges { cursor } } }');
    const e = r.body.errors?.[0];
    expect(e?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(e?.extensions?.field).toBe('first');
    expect((e?.extensions?.issues as { field: string }[]).map((i) => i.field)).toEqual(['first']);
    const r2 = await gql(s, '{ topics(period: "soon", tag: "a..b") { edges { cursor } } }');
    expect((r2.body.errors?.[0]?.extensions?.issues as { field: string }[]).map((i) => i.field)).toEqual([
      'period',
      'tag',
    ]);
  });

  it('an input field of a mutation', async () => {
    const r = await gql(s, 'mutation { postTopic(input: { group: "tech", title: "" }) { id } }', {}, alice.token);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'title' });
  });

  it('a variable of the wrong type is refused before execution (HTTP 400)', async () => {
    const r = await gql(s, 'query($n: Int) { topics(first: $n) { edges { cursor } } }', { n: 'ten' });
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('an unknown enum value is a validation error (HTTP 400)', async () => {
    const r = await gql(s, '{ topics(order: HOT) { edges { cursor } } }');
    expect(r.status).toBe(400);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('TOO_MANY_REQUESTS (HTTP 429)', () => {
  it('the login rate limit, with Retry-After and extensions.retryAfter', async () => {
    for (let i = 0; i < 2; i++)
      await gql(s, 'mutation { login(username: "bob", password: "wrong password") { token } }');
    const r = await gql(s, 'mutation { login(username: "bob", password: "wrong password") { token } }');
    expect(r.status).toBe(429);
    expect(r.body.errors?.[0]).toMatchObject({
      message: 'Too many login attempts, try again later',
      extensions: { code: 'TOO_MANY_REQUESTS' },
    });
    expect(r.body.errors?.[0]?.extensions?.retryAfter).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('unexpected errors', () => {
  it('are masked as INTERNAL_SERVER_ERROR without detail (the detail goes to the log)', async () => {
    const ds = f.d;
    const original = ds.groups.list;
    ds.groups.list = async () => {
      throw new Error('secret internal detail: connection string mongodb://user:pw@host');
    };
    try {
      const r = await gql(s, '{ groups { path } }');
      expect(r.body.errors?.[0]).toMatchObject({
        message: 'Internal server error',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      });
      expect(JSON.stringify(r.body)).not.toMatch(/secret|mongodb:|stack|at /);
    } finally {
      ds.groups.list = original;
    }
  });

  it("a field that fails alone leaves its siblings' data", async () => {
    const t = await f.topic(alice, { title: 'Sibling' });
    const r = await gql(
      s,
      `{ topic(id: "${t.id36}") { title } user(username: "alice") { history(first: 0) { edges { cursor } } } }`,
    );
    expect(r.body.data?.topic).toEqual({ title: 'Sibling' });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
