/** GraphiQL runs subscriptions: its fetcher is given the WebSocket URL, and its live tab works on the demo data. */
import { liveExampleTabs } from '../../../src/graphiql/live-examples';
import { liveClient, wsUrlOf } from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ DEMO_SEED: 'true' });
});
afterAll(async () => s?.close());

it("GraphiQL's fetcher gets a subscriptionUrl on /graphql, and the live tab is among its tabs", async () => {
  const script = await (await fetch(`${s.url}/graphiql/app.js`)).text();
  expect(script).toMatch(/createFetcher\(\{ url: '\/graphql', subscriptionUrl: subscriptionUrl/);
  expect(script).toContain("location.host + '/graphql'");
  expect(script).toContain(JSON.stringify(liveExampleTabs[0]!.query).slice(1, 40));
});

it.each(liveExampleTabs.map((t, i) => [i, t] as const))(
  "live tab %i subscribes over WebSocket and receives the demo topic's next comment",
  async (_i, tab) => {
    const c = liveClient(wsUrlOf(s.url));
    try {
      const sub = c.subscribe(tab.query, JSON.parse(tab.variables ?? '{}'));
      await new Promise((r) => setTimeout(r, 300));
      const d = s.agora.services.discussion;
      const alice = await d.auth.login({ username: 'alice', password: 'demo-password', clientAddress: '127.0.0.1' });
      const actor = {
        kind: 'user' as const,
        userId: alice.user.id,
        username: alice.user.username,
        isAdmin: alice.user.isAdmin,
      };
      await d.comments.post(actor, { topicId: '1', markdown: 'live from the GraphiQL test' });
      const [m] = await sub.got.count(1);
      expect(m.errors).toBeUndefined();
      expect(m.data.topicActivity).toMatchObject({
        kind: 'COMMENT_POSTED',
        comment: { author: { username: 'alice' } },
      });
    } finally {
      await c.dispose();
    }
  },
);
