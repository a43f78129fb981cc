/**
 * The WebSocket front door: protocol, authentication (invalid, expired and revoked tokens), limits,
 * keep-alive, metrics and graceful shutdown, through real sockets against real servers.
 */
import WebSocket from 'ws';
import { Factory, TestUser } from '../../helpers/factories';
import {
  Instance,
  liveClient,
  LiveClient,
  rawSocket,
  skippedGaps,
  startSecondInstance,
  wsUrlOf,
} from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

let s: TestServer;
let other: Instance;
let f: Factory;
let alice: TestUser;
const clients: LiveClient[] = [];
const ACTIVITY = 'subscription($id: ID!) { topicActivity(topicId: $id) { kind cursor commentId } }';
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  s = await startTestServer({ LIVE_MAX_SUBSCRIPTIONS: '2', LIVE_MAX_CONNECTIONS_PER_ADDRESS: '6' });
  other = await startSecondInstance(s);
  f = new Factory(s);
  alice = await f.user('alice');
});
// Every event reached every instance's feed in order: none skipped a hole in the log.
afterEach(async () => {
  expect(await skippedGaps(s.url)).toBe(0);
  expect(await skippedGaps(other.url)).toBe(0);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await other.close();
  await s.close();
});

describe('protocol and authentication', () => {
  it('speaks graphql-transport-ws on /graphql and acknowledges a valid token', async () => {
    const sock = rawSocket(wsUrlOf(s.url), {
      type: 'connection_init',
      payload: { authorization: `Bearer ${await alice.tokenNow()}` },
    });
    await sock.opened;
    expect(sock.ws.protocol).toBe('graphql-transport-ws');
    await settle();
    expect(sock.received).toEqual([{ type: 'connection_ack' }]);
    sock.ws.close();
  });

  it('closes with 4403 after connection_init when the token is invalid', async () => {
    const sock = rawSocket(wsUrlOf(s.url), {
      type: 'connection_init',
      payload: { authorization: 'Bearer not-a-token' },
    });
    expect(await sock.closed).toMatchObject({ code: 4403 });
    expect(sock.received).toEqual([]);
  });

  it('refuses a protocol other than graphql-transport-ws', async () => {
    const sock = rawSocket(wsUrlOf(s.url), null, 'graphql-ws');
    // The server selects no subprotocol, which a client asking for one must treat as a failure.
    const opened = await sock.opened.then(
      () => sock.ws.protocol,
      (err: Error) => err.message,
    );
    expect(opened).not.toBe('graphql-ws');
    expect((await sock.closed).code).not.toBe(1000);
  });

  it('answers an upgrade on another path with 404', async () => {
    const sock = rawSocket(`${wsUrlOf(s.url)}x`, null);
    await expect(sock.opened).rejects.toThrow('HTTP 404');
  });

  it("logging out everywhere on the other instance ends that viewer's subscriptions in seconds (4403)", async () => {
    const bob = await f.user();
    const token = await bob.tokenNow();
    const sock = rawSocket(wsUrlOf(s.url), { type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    await sock.opened;
    await settle();
    const started = Date.now();
    await other.agora.services.discussion.auth.logoutEverywhere(bob.actor);
    expect(await sock.closed).toMatchObject({ code: 4403, reason: 'Token revoked' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("a ban ends the banned viewer's subscriptions (4403); other viewers stay connected", async () => {
    const carol = await f.user();
    const dave = await f.user();
    const admin = await f.user(undefined, { admin: true });
    const carolSock = rawSocket(other.wsUrl, {
      type: 'connection_init',
      payload: { authorization: `Bearer ${await carol.tokenNow()}` },
    });
    const daveSock = rawSocket(other.wsUrl, {
      type: 'connection_init',
      payload: { authorization: await dave.tokenNow() },
    });
    await Promise.all([carolSock.opened, daveSock.opened]);
    await settle();
    await s.agora.services.discussion.users.ban(admin.actor, carol.username);
    expect(await carolSock.closed).toMatchObject({ code: 4403 });
    await settle(500);
    expect(daveSock.ws.readyState).toBe(WebSocket.OPEN);
    daveSock.ws.close();
  });

  it('closes with 4403 when the token expires', async () => {
    const erin = await f.user();
    // A token issued 58 s ago under the 60 s lifetime below: it expires 2 s from now.
    const lifetime = s.config.discussion.jwtLifetimeSeconds;
    s.config.discussion.jwtLifetimeSeconds = 60;
    f.at(new Date(Date.now() - 58_000));
    const token = await erin.tokenNow();
    f.at(null);
    s.config.discussion.jwtLifetimeSeconds = lifetime;
    const sock = rawSocket(wsUrlOf(s.url), { type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
    await sock.opened;
    await settle();
    expect(sock.received).toEqual([{ type: 'connection_ack' }]);
    expect(await sock.closed).toMatchObject({ code: 4403, reason: 'Token expired' });
  });

  it('runs only subscriptions: a query over the socket is refused', async () => {
    const c = liveClient(wsUrlOf(s.url));
    clients.push(c);
    const q = c.subscribe('{ serverInfo { version } }');
    await q.got.until(() => q.got.errors.length > 0);
    expect(q.got.errors[0][0]).toMatchObject({
      message: expect.stringContaining('Only subscriptions'),
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it('a document of several operations without an operation name is refused with a code', async () => {
    const c = liveClient(wsUrlOf(s.url));
    clients.push(c);
    const q = c.subscribe('subscription A { newTopics { cursor } } subscription B { newTopics { cursor } }');
    await q.got.until(() => q.got.errors.length > 0);
    expect(q.got.errors[0][0]).toMatchObject({
      message: 'Must provide operation name if query contains multiple operations.',
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('variables', () => {
  it.each([
    ['missing', {}],
    ['of the wrong type', { id: { a: 1 } }],
    ['null for a required one', { id: null }],
  ])(
    'a required variable %s is BAD_USER_INPUT with the message HTTP gives, and logs no error',
    async (_, variables) => {
      const http = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'query($id: ID!) { topic(id: $id) { id } }', variables }),
      });
      const httpBody = (await http.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(http.status).toBe(400);
      expect(httpBody.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
      const logged = jest.spyOn(s.agora.app.log, 'error');
      try {
        const c = liveClient(wsUrlOf(s.url));
        clients.push(c);
        const q = c.subscribe(ACTIVITY, variables);
        await q.got.until(() => q.got.errors.length > 0 || q.got.messages.length > 0);
        // Refused before it runs, as HTTP refuses it: an `error` message, no `next`.
        expect(q.got.messages).toEqual([]);
        expect(q.got.errors[0]).toEqual([
          expect.objectContaining({
            message: httpBody.errors[0]!.message,
            extensions: { code: 'BAD_USER_INPUT' },
          }),
        ]);
        expect(logged).not.toHaveBeenCalled();
      } finally {
        logged.mockRestore();
      }
    },
  );
});

describe('limits', () => {
  it('the cost limit of HTTP refuses an expensive subscription (each event would run it again)', async () => {
    // The tree of a 1,000-comment topic, a hundred times: over the limit at subscribe already.
    const t = await f.topic(alice, { title: 'Costly' });
    await f.bulkComments(alice, t, 1000);
    const aliases = Array.from(
      { length: 100 },
      (_, i) => `a${i}: threads(first: 1000) { nodes { descendants { comment { id36 } } } }`,
    ).join(' ');
    const query = `subscription($t: ID!) { topicActivity(topicId: $t) { cursor topic { ${aliases} } } }`;
    const c = liveClient(wsUrlOf(s.url));
    clients.push(c);
    const q = c.subscribe(query, { t: t.id36 });
    await q.got.until(() => q.got.errors.length > 0);
    expect(q.got.errors[0]).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Query is too expensive: estimated cost \d+ exceeds the limit of \d+$/),
        extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED', maxCost: expect.any(Number) }),
      }),
    ]);
    expect(q.got.errors[0][0].extensions.http).toBeUndefined();
    // Refused over HTTP too (as a subscription it is refused for its transport first; the same
    // selection as a query is refused by cost).
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `query($t: ID!) { topic(id: $t) { ${aliases} } }`, variables: { t: t.id36 } }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/too expensive/);
    // A cheap subscription on the same connection still runs.
    const ok = c.subscribe(ACTIVITY, { id: t.id36 });
    await settle();
    expect(ok.got.errors).toEqual([]);
    ok.stop();
  });

  it('each event re-runs the selection within the cost limit, on the topic as it is then', async () => {
    // Cheap at subscribe (the topic is empty); a tree of a thousand comments a hundred times later.
    const t = await f.topic(alice, { title: 'Growing' });
    const aliases = Array.from(
      { length: 100 },
      (_, i) => `a${i}: threads(first: 1000) { nodes { descendants { comment { id36 } } } }`,
    ).join(' ');
    const query = `subscription($t: ID!) { topicActivity(topicId: $t) { cursor kind topic { ${aliases} } } }`;
    const c = liveClient(wsUrlOf(s.url));
    try {
      const q = c.subscribe(query, { t: t.id36 });
      await settle();
      expect(q.got.errors).toEqual([]);
      await f.voteTopic(await f.user(), t);
      await q.got.count(1);
      expect(q.got.messages[0].errors).toBeUndefined();
      expect(q.got.messages[0].data.topicActivity.kind).toBe('TOPIC_VOTES_CHANGED');

      await f.bulkComments(alice, t, 1000);
      await f.voteTopic(await f.user(), t);
      await q.got.count(2);
      const refused = q.got.messages[1];
      expect(refused.data?.topicActivity ?? null).toBeNull();
      expect(refused.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(
            new RegExp(
              "^Event not sent: the subscription's selection on the topic as it is now \\(1000 comments\\) " +
                'has an estimated cost of \\d+, over the limit of \\d+',
            ),
          ),
          extensions: expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED', maxCost: expect.any(Number) }),
        }),
      ]);
      expect(refused.errors[0].extensions.http).toBeUndefined();
      // Nothing of the tree was computed or sent.
      expect(JSON.stringify(refused).length).toBeLessThan(2000);
      q.stop();
    } finally {
      await c.dispose();
    }
  });

  it(`at most LIVE_MAX_SUBSCRIPTIONS per connection; completing one frees its place`, async () => {
    const topic = await f.topic(alice);
    const c = liveClient(wsUrlOf(s.url));
    clients.push(c);
    const a = c.subscribe(ACTIVITY, { id: topic.id36 });
    const b = c.subscribe(ACTIVITY, { id: topic.id36 });
    await settle();
    const third = c.subscribe(ACTIVITY, { id: topic.id36 });
    await third.got.until(() => third.got.errors.length > 0);
    expect(third.got.errors[0][0].extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    a.stop();
    await settle();
    const fourth = c.subscribe(ACTIVITY, { id: topic.id36 });
    await settle();
    const posted = await f.comment(alice, topic);
    expect((await fourth.got.count(1))[0].data.topicActivity.commentId).toBe(posted.id36);
    expect((await b.got.count(1))[0].data.topicActivity.commentId).toBe(posted.id36);
    expect(a.got.messages).toHaveLength(0);
  });

  it('at most LIVE_MAX_CONNECTIONS_PER_ADDRESS connections per client address (429 on the upgrade)', async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    clients.length = 0;
    await settle();
    const socks = Array.from({ length: 6 }, () => rawSocket(wsUrlOf(s.url), null));
    await Promise.all(socks.map((x) => x.opened));
    const extra = rawSocket(wsUrlOf(s.url), null);
    await expect(extra.opened).rejects.toThrow('HTTP 429');
    socks[0]!.ws.close();
    await socks[0]!.closed;
    await settle();
    const again = rawSocket(wsUrlOf(s.url), null);
    await again.opened;
    for (const x of [...socks, again]) x.ws.close();
    await settle();
  });
});

describe('lifecycle', () => {
  it('drops a client that stops answering pings (LIVE_KEEPALIVE), keeps one that answers', async () => {
    const t = await startTestServer({ LIVE_KEEPALIVE: '1' });
    try {
      const silent = new WebSocket(wsUrlOf(t.url), 'graphql-transport-ws', { autoPong: false });
      const polite = new WebSocket(wsUrlOf(t.url), 'graphql-transport-ws');
      const silentClosed = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)));
      await Promise.all([silent, polite].map((w) => new Promise((r) => w.once('open', r))));
      for (const w of [silent, polite]) w.send(JSON.stringify({ type: 'connection_init' }));
      expect(await silentClosed).toBe(1006);
      expect(polite.readyState).toBe(WebSocket.OPEN);
      polite.close();
    } finally {
      await t.close();
    }
  });

  it('reports open sockets, active subscriptions and delivered events in /metrics', async () => {
    const topic = await f.topic(alice);
    const c = liveClient(other.wsUrl);
    clients.push(c);
    const sub = c.subscribe(ACTIVITY, { id: topic.id36 });
    await settle();
    await f.comment(alice, topic);
    await sub.got.count(1);
    const text = await (await fetch(`${other.url}/metrics`)).text();
    expect(text).toMatch(/^live_sockets_open 1$/m);
    expect(text).toMatch(/^live_subscriptions_active 1$/m);
    expect(Number(/^live_events_delivered_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('a graceful shutdown sends the messages under way, then closes every socket with 1001', async () => {
    const t = await startTestServer();
    const tf = new Factory(t);
    const u = await tf.user();
    const topic = await tf.topic(u);
    const c = liveClient(wsUrlOf(t.url));
    const sub = c.subscribe(ACTIVITY, { id: topic.id36 });
    await settle();
    const posted = [];
    for (let i = 0; i < 5; i++) posted.push(await tf.comment(u, topic));
    await t.agora.close();
    await sub.got.until(() => c.closes.length > 0);
    expect(c.closes[0]!.code).toBe(1001);
    expect(sub.got.messages.map((m) => m.data.topicActivity.commentId)).toEqual(posted.map((p) => p.id36));
    await c.dispose();
    await t.close().catch(() => {});
  });
});
