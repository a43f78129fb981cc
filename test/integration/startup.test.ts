/**
 * Start-up (issue 12, issue 13 bug 1): /healthz answers at once, /readyz only once the start-up
 * work (demo seed, first sweeps) is done; the demo seed writes three days of history through a
 * clock of its own, so accounts registered while it runs, or after, get a joinedAt of now.
 */
import { startTestServer, TestServer } from '../helpers/server';
import { request } from './files/helpers';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ DEMO_SEED: 'true' }, { start: false });
});
afterAll(async () => {
  await s?.close();
});

const gql = async (query: string, variables: Record<string, unknown> = {}) => {
  const r = await request(s.url, 'POST', '/graphql', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return r.json<{ data: any; errors?: unknown[] }>();
};
const register = (username: string) =>
  gql('mutation($u: String!) { register(username: $u, password: "a long password 1") { user { username } } }', {
    u: username,
  });
const status = async (path: string) => (await request(s.url, 'GET', path)).status;

it('answers /healthz at once and /readyz 503 until the start-up work is done, then 200', async () => {
  expect(await status('/healthz')).toBe(200);
  const ready = await request(s.url, 'GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.json()).toMatchObject({ status: 'starting' });

  let started = false;
  const starting = s.agora.start().then(() => (started = true));
  // Registrations while the seed writes (it spends seconds hashing passwords alone), and one after.
  const during: string[] = [];
  const seen503: boolean[] = [];
  for (let i = 0; !started && i < 200; i++) {
    const name = `during${i}`;
    const r = await register(name);
    expect(r.errors).toBeUndefined();
    if (!started) during.push(name);
    const readyWhileStarting = await request(s.url, 'GET', '/readyz');
    if (!started) seen503.push(readyWhileStarting.status === 503);
    await new Promise((res) => setTimeout(res, 20));
  }
  await starting;
  expect(during.length).toBeGreaterThan(0);
  expect(seen503.length).toBeGreaterThan(0);
  expect(seen503.every(Boolean)).toBe(true);
  expect(await status('/readyz')).toBe(200);
  expect((await register('afterstart')).errors).toBeUndefined();

  const now = Date.now();
  for (const username of [...during, 'afterstart']) {
    const d = (await gql('query($u: String!) { user(username: $u) { joinedAt } }', { u: username })).data;
    expect(Math.abs(new Date(d.user.joinedAt).getTime() - now)).toBeLessThan(60_000);
  }
  // The seed's own clock did spread the demo data over the past days.
  const alice = (await gql('{ user(username: "alice") { joinedAt } }')).data.user;
  expect(now - new Date(alice.joinedAt).getTime()).toBeGreaterThan(90 * 3600_000);
  const topics = (await gql('{ topics(first: 10) { edges { node { title createdAt } } } }')).data.topics.edges;
  expect(topics).toHaveLength(6);
  expect(Math.max(...topics.map((e: any) => now - new Date(e.node.createdAt).getTime()))).toBeGreaterThan(
    60 * 3600_000,
  );
});
