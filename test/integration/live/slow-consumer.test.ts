/**
 * A consumer that stops reading is dropped once more than LIVE_QUEUE_LIMIT messages wait for it,
 * and what was queued for it is let go; other subscribers keep receiving.
 */
import WebSocket from 'ws';
import { Factory } from '../../helpers/factories';
import { liveClient, rawSocket, skippedGaps, wsUrlOf } from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ LIVE_QUEUE_LIMIT: '20', LIVE_MAX_SUBSCRIPTIONS: '100' });
});
// Every event reached the feed in order: it skipped no hole in the log.
afterEach(async () => expect(await skippedGaps(s.url)).toBe(0));
afterAll(async () => s?.close());

it('closes a connection more than LIVE_QUEUE_LIMIT messages behind (1008), keeps serving others', async () => {
  const f = new Factory(s);
  const u = await f.user();
  const topic = await f.topic(u);
  const query = 'subscription($id: ID!) { topicActivity(topicId: $id) { cursor comment { renderedHtml: textHtml } } }';
  const slow = rawSocket(wsUrlOf(s.url), { type: 'connection_init' });
  await slow.opened;
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < 100; i++) {
    slow.send({ id: String(i), type: 'subscribe', payload: { query, variables: { id: topic.id36 } } });
  }
  const healthy = liveClient(wsUrlOf(s.url));
  const sub = healthy.subscribe(query, { id: topic.id36 });
  // Every subscription registered before the comments are posted: a subscription begins at the
  // log's end when it is registered, so one registered late (a loaded machine) would miss them.
  const subscriptions = async () => (await s.agora.metrics.liveSubscriptions.get()).values[0]?.value ?? 0;
  const ready = Date.now() + 20_000;
  while ((await subscriptions()) < 101 && Date.now() < ready) await new Promise((r) => setTimeout(r, 50));
  expect(await subscriptions()).toBe(101);
  // The slow client stops reading: what the server writes piles up in its buffers, then in the queue.
  (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const big = 'x'.repeat(40_000);
  for (let i = 0; i < 4; i++) await f.comment(u, topic, { markdown: `${big} ${i}` });
  await sub.got.count(4, 15_000);
  const metrics = async () => (await fetch(`${s.url}/metrics`)).text();
  const end = Date.now() + 10_000;
  while (!/^live_connections_dropped_total\{reason="slow"\} 1$/m.test(await metrics()) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await metrics()).toMatch(/^live_connections_dropped_total\{reason="slow"\} 1$/m);
  // Nothing is held for it any more: its subscriptions are gone, the healthy one remains.
  expect((await s.agora.metrics.liveSubscriptions.get()).values[0]!.value).toBe(1);
  (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  expect((await slow.closed).code).toBe(1008);
  await f.comment(u, topic, { markdown: 'after the drop' });
  await sub.got.count(5);
  expect(slow.ws.readyState).toBe(WebSocket.CLOSED);
  await healthy.dispose();
});
