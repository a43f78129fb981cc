/**
 * NoSQL injection is impossible: operator objects (`{"$ne": null}`, `{"$regex": ".*"}`,
 * `{"$gt": ""}`) in a JSON body, bracketed query strings (`tag[$ne]=x`, `after[$gt]=0`) and GraphQL
 * arguments never reach a query as operators.
 *
 * - /api/beta: the login body must hold strings (400 naming the field otherwise). Query strings are
 *   read as flat `name=value` pairs: a bracketed name such as `tag[$ne]` is simply another,
 *   unknown, parameter name, which docs/discussion-api.md §1.1 ignores — so the answer equals the one without
 *   it. Operator-looking *values* are strings and fail the parameter's rule (400 with its item).
 * - Files-*: only strings are read from headers, cookies and the query; a bracketed name is not
 *   `access_key`.
 * - GraphQL: arguments are typed; an object where a String or ID belongs is BAD_USER_INPUT (as a
 *   variable) or GRAPHQL_VALIDATION_FAILED (as a literal), before any resolver runs.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { BetaClient } from '../../helpers/beta-client';
import { Factory, TestUser } from '../../helpers/factories';
import { request } from '../files/helpers';

let s: TestServer;
let beta: BetaClient;
let f: Factory;
let alice: TestUser;
let topicId: string;

const OPERATORS: unknown[] = [
  { $ne: null },
  { $regex: '.*' },
  { $gt: '' },
  { $where: 'sleep(1000)' },
  { $in: ['alice', 'bob'] },
  { $exists: true },
  ['alice'],
  { '0': 'a' },
];
const OPERATOR_TEXTS = [
  '{"$ne":null}',
  '{"$regex":".*"}',
  '{"$gt":""}',
  '[$ne]',
  '$ne',
  '.*',
  "' || '1'=='1",
  'a\u0000b',
];

beforeAll(async () => {
  s = await startTestServer({ LOGIN_RATE_LIMIT: '1000' });
  beta = new BetaClient(s.url);
  f = new Factory(s);
  alice = await f.user('alice');
  const bob = await f.user('bob');
  const t1 = await f.topic(alice, { tags: ['ask.survey', 'hello world'] });
  await f.topic(bob, { tags: ['news'] });
  await f.comment(bob, t1);
  await f.comment(alice, t1);
  topicId = t1.id36;
});
afterAll(async () => s?.close());

describe('POST /api/beta/login', () => {
  it.each(OPERATORS.map((o) => [JSON.stringify(o), o]))(
    'an operator object %s as username or password is a 400 naming the field',
    async (_n, op) => {
      for (const body of [
        { username: op, password: op },
        { username: 'alice', password: op },
        { username: op, password: 'correct horse battery' },
      ]) {
        const r = await beta.post('/login', body);
        expect(r.status).toBe(400);
        const fields = Object.entries(body)
          .filter(([, v]) => typeof v !== 'string')
          .map(([k]) => k);
        expect(r.body.map((i: { field: string }) => i.field)).toEqual(fields);
        for (const item of r.body) {
          expect(item.exception).toBe('ValidationError');
          expect(item.message).toMatch(/ is not of type 'string'$/);
        }
      }
    },
  );

  it('form-encoded or bracketed bodies are not JSON: 400, nothing logs in', async () => {
    for (const body of [
      'username[$ne]=x&password[$ne]=x',
      'username=alice&password[$gt]=',
      '{"username": {"$ne": null}',
      'null',
      '[]',
      '"alice"',
    ]) {
      const r = await beta.request('POST', '/login', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual([{ exception: 'ValidationError', message: 'Request body is not valid JSON' }]);
    }
  });

  it('operator-looking strings are just wrong credentials (401)', async () => {
    for (const t of OPERATOR_TEXTS) {
      expect((await beta.post('/login', { username: t, password: t })).status).toBe(401);
      expect((await beta.post('/login', { username: 'alice', password: t })).status).toBe(401);
    }
  });

  it('duplicate keys and prototype keys do not smuggle an object in', async () => {
    const dup = await beta.request('POST', '/login', {
      headers: { 'content-type': 'application/json' },
      body: '{"username":"alice","password":"x","password":{"$ne":null}}',
    });
    expect(dup.status).toBe(400);
    expect(dup.body[0].field).toBe('password');
    const proto = await beta.request('POST', '/login', {
      headers: { 'content-type': 'application/json' },
      body: '{"__proto__":{"username":"alice","password":"x"}}',
    });
    expect(proto.status).toBe(400);
    expect(({} as Record<string, unknown>).username).toBeUndefined();
  });
});

describe('/api/beta query strings', () => {
  /** Path and its parameters, with valid values, for every paginated endpoint. */
  const endpoints = () => [
    { path: '/topics', params: ['limit', 'before', 'after', 'period', 'tag', 'order'] },
    { path: `/topic/${topicId}`, params: ['order'] },
    { path: '/user/alice', params: ['limit', 'before', 'after'] },
    { path: '/user/alice/topics', params: ['limit', 'before', 'after'] },
    { path: '/user/alice/comments', params: ['limit', 'before', 'after'] },
  ];

  it('a bracketed parameter name is an unknown parameter: the answer equals the one without it', async () => {
    for (const { path, params } of endpoints()) {
      const plain = await beta.get(path);
      expect(plain.status).toBe(200);
      for (const p of params) {
        for (const suffix of ['[$ne]=x', '[$gt]=0', '[$regex]=.*', '[]=1', '[0]=1', '.$ne=1', '[$where]=1']) {
          const r = await beta.get(`${path}?${p}${suffix}`);
          expect(r.status).toBe(200);
          expect(r.body).toEqual(plain.body);
        }
      }
    }
  });

  it('operator-looking values are strings that fail the parameter rules (400 with the documented item)', async () => {
    const expected: Record<string, { exception: string; message: RegExp }> = {
      limit: { exception: 'ParameterValidationError', message: /^Failed to cast value to integer type: / },
      before: { exception: 'ValidationError', message: /^String does not match expected pattern\.$/ },
      after: { exception: 'ValidationError', message: /^String does not match expected pattern\.$/ },
      period: { exception: 'ValidationError', message: /^Invalid time period$/ },
      tag: { exception: 'ValidationError', message: /^(Only letters, numbers, and spaces allowed\.|Invalid path)$/ },
      order: { exception: 'ValidationError', message: / is not one of \[/ },
    };
    for (const { path, params } of endpoints()) {
      for (const p of params) {
        for (const v of OPERATOR_TEXTS) {
          const r = await beta.get(`${path}?${p}=${encodeURIComponent(v)}`);
          expect(r.status).toBe(400);
          expect(r.body).toHaveLength(1);
          expect(r.body[0]).toMatchObject({ field: p, exception: expected[p]!.exception });
          expect(r.body[0].message).toMatch(expected[p]!.message);
        }
      }
    }
  });

  it('a repeated parameter uses its first occurrence, never an array', async () => {
    const one = await beta.get('/topics?tag=news');
    const both = await beta.get('/topics?tag=news&tag=ask');
    expect(both.body).toEqual(one.body);
    expect((await beta.get('/topics?limit=abc&limit=5')).status).toBe(400);
  });

  it('path segments are strings: operator-looking ids and usernames name nothing', async () => {
    for (const v of OPERATOR_TEXTS) {
      const id = await beta.get(`/topic/${encodeURIComponent(v)}`);
      expect(id.status).toBe(400);
      const user = await beta.get(`/user/${encodeURIComponent(v)}`);
      expect(user.status).toBe(404);
      expect(user.body).toEqual([{ message: 'User not found' }]);
    }
  });
});

describe('GraphQL arguments', () => {
  async function gql(query: string, variables: Record<string, unknown> = {}) {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] },
    };
  }

  const STRING_ARGS: [string, string][] = [
    ['query($v: String!) { user(username: $v) { username } }', 'username'],
    ['query($v: ID!) { topic(id: $v) { id } }', 'id'],
    ['query($v: String) { topics(tag: $v) { edges { cursor } } }', 'tag'],
    ['query($v: String) { topics(period: $v) { edges { cursor } } }', 'period'],
    ['query($v: String) { topics(group: $v) { edges { cursor } } }', 'group'],
    ['query($v: String) { topics(after: $v) { edges { cursor } } }', 'after'],
    ['query($v: String) { topics(before: $v, last: 1) { edges { cursor } } }', 'before'],
    ['query($v: String!) { file(filename: $v) { filename } }', 'filename'],
    ['query($v: String) { file(filename: "x.txt", accessKey: $v) { filename } }', 'accessKey'],
    ['query($v: String!) { group(path: $v) { path } }', 'path'],
    ['mutation($v: String!) { login(username: $v, password: "x") { token } }', 'login username'],
    ['mutation($v: String!) { login(username: "alice", password: $v) { token } }', 'login password'],
    ['mutation($v: String!) { register(username: $v, password: "long enough pw") { token } }', 'register username'],
  ];

  it.each(STRING_ARGS)(
    'an operator object as a variable for %s is BAD_USER_INPUT (400) before any resolver runs',
    async (query) => {
      for (const op of OPERATORS) {
        const r = await gql(query, { v: op });
        expect(r.status).toBe(400);
        expect(r.body.data).toBeUndefined();
        expect(r.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      }
    },
  );

  it('operator objects as literals are refused by validation', async () => {
    for (const q of [
      '{ user(username: {$ne: null}) { username } }',
      '{ topics(tag: {ne: null}) { edges { cursor } } }',
      '{ topic(id: ["1"]) { id } }',
      'mutation { login(username: {ne: 1}, password: "x") { token } }',
    ]) {
      const r = await gql(q);
      expect(r.status).toBe(400);
      expect(r.body.errors?.[0]?.extensions.code).toMatch(/^GRAPHQL_(PARSE|VALIDATION)_FAILED$/);
    }
  });

  it('operator-looking strings are validated as strings (BAD_USER_INPUT or nothing found)', async () => {
    for (const v of OPERATOR_TEXTS) {
      const u = await gql('query($v: String!) { user(username: $v) { username } }', { v });
      expect(u.body.errors).toBeUndefined();
      expect(u.body.data).toEqual({ user: null });
      const tag = await gql('query($v: String) { topics(tag: $v) { edges { cursor } } }', { v });
      expect(tag.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
      const login = await gql('mutation($v: String!) { login(username: "alice", password: $v) { token } }', { v });
      expect(login.body.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    }
  });
});

describe('Files-* inputs', () => {
  let protectedName: string;
  let deleteKey: string;
  beforeAll(async () => {
    const up = await request(s.url, 'PUT', '/upload/secret.txt', {
      headers: { accept: 'application/json', 'files-access-key': 'right-key' },
      body: 'secret',
    });
    expect(up.status).toBe(200);
    protectedName = up.json().filename!;
    deleteKey = up.json().delete_key!;
  });

  it('a bracketed or repeated access_key never reads a protected file', async () => {
    for (const q of [
      'access_key[$ne]=x',
      'access_key[$gt]=',
      'access_key[]=right-key',
      'access_key[$regex]=.*',
      'access_key=%7B%22%24ne%22%3Anull%7D',
    ]) {
      const r = await request(s.url, 'GET', `/selif/${protectedName}?${q}`);
      expect(r.status).toBe(401);
      expect(r.text).toBe('Invalid access key\n');
    }
    expect((await request(s.url, 'GET', `/selif/${protectedName}?access_key=right-key&access_key=wrong`)).status).toBe(
      200,
    );
    expect((await request(s.url, 'GET', `/selif/${protectedName}?access_key=wrong&access_key=right-key`)).status).toBe(
      401,
    );
  });

  it('operator-looking keys in headers, cookies and bodies are wrong keys', async () => {
    for (const v of OPERATOR_TEXTS.filter((t) => !t.includes('\u0000'))) {
      expect(
        (await request(s.url, 'GET', `/selif/${protectedName}`, { headers: { 'files-access-key': v } })).status,
      ).toBe(401);
      expect(
        (
          await request(s.url, 'GET', `/selif/${protectedName}`, {
            headers: { cookie: `Files-Access-Key=${encodeURIComponent(v)}` },
          })
        ).status,
      ).toBe(401);
      const body = `access_key[$ne]=1&access_key=${encodeURIComponent(v)}`;
      expect(
        (
          await request(s.url, 'GET', `/${protectedName}`, {
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body,
          })
        ).status,
      ).toBe(401);
      expect((await request(s.url, 'DELETE', `/${protectedName}`, { headers: { 'files-delete-key': v } })).status).toBe(
        401,
      );
    }
    expect(
      (await request(s.url, 'GET', `/selif/${protectedName}`, { headers: { 'files-access-key': 'right-key' } })).text,
    ).toBe('secret');
    expect(
      (await request(s.url, 'DELETE', `/${protectedName}`, { headers: { 'files-delete-key': deleteKey } })).status,
    ).toBe(200);
  });

  it('operator-looking file names name nothing', async () => {
    for (const v of OPERATOR_TEXTS) {
      for (const path of [`/${encodeURIComponent(v)}`, `/selif/${encodeURIComponent(v)}`]) {
        const r = await request(s.url, 'GET', path, { headers: { accept: 'application/json' } });
        expect([404]).toContain(r.status);
      }
    }
  });
});
