/** Routes and transport (docs/discussion-api.md §1.1, §2.2, §2.5): 404, 405 with Allow, HEAD, content type. */
import { BetaClient } from '../../helpers/beta-client';
import { Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
let api: BetaClient;
let f: Factory;
let alice: TestUser;
let topicId: string;

beforeAll(async () => {
  s = await startTestServer({ PUBLIC_URL: 'https://example.org' });
  api = new BetaClient(s.url);
  f = new Factory(s);
  alice = await f.user('alice');
  topicId = (await f.topic(alice, { title: 'Hello' })).id36;
  await f.comment(alice, topicId);
});
afterAll(async () => {
  await s?.close();
});

const GET_PATHS = () => [
  '/whoami',
  '/topics',
  `/topic/${topicId}`,
  '/user/alice',
  '/user/alice/topics',
  '/user/alice/comments',
];

describe('unknown paths', () => {
  it.each([
    '',
    '/',
    '/topics/',
    '/topic',
    '/topic/',
    `/topic/1/`,
    '/user/alice/',
    '/user/alice/history',
    '/user',
    '/users/alice',
    '/login/',
    '/whoami/',
    '/TOPICS',
    '/nope',
  ])('%p → 404 Not found', async (path) => {
    const res = await api.get(path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual([{ message: 'Not found' }]);
  });

  it('answers 404 for unknown paths even with an invalid token', async () => {
    const res = await api.get('/nope', { token: 'garbage' });
    expect(res.status).toBe(404);
  });
});

describe('wrong methods', () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
    '%s on the GET routes → 405 with Allow: GET, HEAD',
    async (method) => {
      for (const path of GET_PATHS()) {
        const res = await api.request(method, path, { body: method === 'OPTIONS' ? undefined : '{}' });
        expect(res.status).toBe(405);
        expect(res.body).toEqual([{ message: 'Method not allowed' }]);
        expect(res.headers.get('allow')).toBe('GET, HEAD');
      }
    },
  );

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('%s /login → 405 with Allow: POST', async (method) => {
    const res = await api.request(method, '/login');
    expect(res.status).toBe(405);
    expect(res.body).toEqual([{ message: 'Method not allowed' }]);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('HEAD /login → 405 without a body', async () => {
    const res = await api.head('/login');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('HEAD', () => {
  it('answers every GET route with the same status and headers and no body', async () => {
    const token = await alice.tokenNow();
    for (const path of [...GET_PATHS(), '/topics?limit=abc', '/topic/zzzz', '/user/nobody']) {
      const get = await api.get(path, { token });
      const head = await api.head(path, { token });
      expect(head.status).toBe(get.status);
      expect(head.text).toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    }
  });

  it('does not record a visit', async () => {
    const bob = await f.user('bob');
    const token = await bob.tokenNow();
    await api.head(`/topic/${topicId}`, { token });
    const first = await api.get(`/topic/${topicId}`, { token });
    expect(first.body.topic.last_visit_time).toBeNull();
    const second = await api.get(`/topic/${topicId}`, { token });
    expect(second.body.topic.last_visit_time).not.toBeNull();
  });
});

describe('content type', () => {
  it('is application/json; charset=utf-8 on success and on every kind of error', async () => {
    // The client checks the header on every response; these exercise each path through the layer.
    await api.get('/topics');
    await api.get('/topics?limit=0');
    await api.get('/whoami');
    await api.get('/topic/zzz');
    await api.post('/login', 'not json');
    await api.request('DELETE', '/topics');
    await api.get('/nowhere');
  });
});

describe('unexpected failures', () => {
  it('answer 500 with no internal detail', async () => {
    const topics = s.agora.services.discussion.topics;
    const original = topics.list;
    topics.list = async () => {
      throw new Error('secret internal detail at /srv/app.js:42');
    };
    try {
      const res = await api.get('/topics');
      expect(res.status).toBe(500);
      expect(res.body).toEqual([{ message: 'Internal server error' }]);
      expect(res.text).not.toMatch(/secret|srv/);
    } finally {
      topics.list = original;
    }
  });
});

describe('the OpenAPI document', () => {
  it('is served and describes the seven endpoints', async () => {
    const res = await fetch(`${s.url}/api/beta/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\.0\./);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/login',
      '/topic/{topic_id36}',
      '/topics',
      '/user/{username}',
      '/user/{username}/comments',
      '/user/{username}/topics',
      '/whoami',
    ]);
    expect(Object.keys(doc.paths['/login']!)).toEqual(['post']);
  });
});
