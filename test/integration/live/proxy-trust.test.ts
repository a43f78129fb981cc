/**
 * The WebSocket door applies TRUST_PROXY exactly as the HTTP doors do (src/core/proxy-trust.ts):
 * X-Forwarded-For picks the address the per-address connection limit counts, and
 * X-Forwarded-Host/-Proto build the links in payloads, only when the peer is a trusted proxy.
 * With TRUST_PROXY naming another address (10.9.9.9), a client on loopback that sends those
 * headers can neither dodge LIVE_MAX_CONNECTIONS_PER_ADDRESS nor put its host into links.
 */
import WebSocket from 'ws';
import { Factory } from '../../helpers/factories';
import { createClient } from 'graphql-ws';
import { wsUrlOf } from '../../helpers/live';
import { startTestServer, TestServer } from '../../helpers/server';

jest.setTimeout(60_000);

const FORWARDED = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

/** A socket that says it comes through a proxy for `forwardedFor`. */
function socketFrom(url: string, forwardedFor: string) {
  const ws = new WebSocket(wsUrlOf(url), 'graphql-transport-ws', { headers: { 'x-forwarded-for': forwardedFor } });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  return { ws, opened, closed };
}

/** The link a new-topic event carries when the subscriber sends the forwarded headers. */
async function linkSeen(s: TestServer): Promise<string> {
  const f = new Factory(s);
  const alice = await f.user();
  // graphql-ws takes a WebSocket class: this one adds the forwarded headers to the upgrade.
  class Forwarding extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: FORWARDED });
    }
  }
  const forwarding = createClient({ url: wsUrlOf(s.url), webSocketImpl: Forwarding, retryAttempts: 0, lazy: true });
  const got: { commentsUrl: string }[] = [];
  const stop = forwarding.subscribe(
    { query: 'subscription { newTopics { topic { commentsUrl } } }' },
    {
      next: (m) => got.push((m.data as { newTopics: { topic: { commentsUrl: string } } }).newTopics.topic),
      error: () => {},
      complete: () => {},
    },
  );
  await settle(500);
  await f.topic(alice, { title: 'Links' });
  const end = Date.now() + 5000;
  while (got.length === 0 && Date.now() < end) await settle(100);
  stop();
  await forwarding.dispose();
  expect(got).toHaveLength(1);
  return got[0]!.commentsUrl;
}

describe('an untrusted sender (TRUST_PROXY=10.9.9.9)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: '10.9.9.9', LIVE_MAX_CONNECTIONS_PER_ADDRESS: '2' });
  });
  afterAll(async () => s?.close());

  it('is counted by its own address whatever X-Forwarded-For says', async () => {
    const socks = [socketFrom(s.url, '198.51.100.1'), socketFrom(s.url, '198.51.100.2')];
    await Promise.all(socks.map((x) => x.opened));
    const third = socketFrom(s.url, '198.51.100.3');
    await expect(third.opened).rejects.toThrow('HTTP 429');
    for (const x of socks) x.ws.close();
    await Promise.all(socks.map((x) => x.closed));
    await settle();
  });

  it('cannot put its X-Forwarded-Host into the links of payloads', async () => {
    const link = await linkSeen(s);
    expect(link.startsWith(`${new URL(s.url).origin}/`)).toBe(true);
  });
});

describe('the trusted proxy (TRUST_PROXY=127.0.0.1)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: '127.0.0.1', LIVE_MAX_CONNECTIONS_PER_ADDRESS: '2' });
  });
  afterAll(async () => s?.close());

  it('counts each client by the address the proxy forwarded', async () => {
    const socks = ['198.51.100.1', '198.51.100.2', '198.51.100.3'].map((a) => socketFrom(s.url, a));
    await Promise.all(socks.map((x) => x.opened));
    const same = [socketFrom(s.url, '198.51.100.1'), socketFrom(s.url, '198.51.100.1')];
    const results = await Promise.allSettled(same.map((x) => x.opened));
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    for (const x of [...socks, ...same]) x.ws.close();
    await settle();
  });

  it('builds links on the host and scheme the proxy forwarded', async () => {
    expect(await linkSeen(s)).toMatch(/^https:\/\/evil\.example\//);
  });
});
