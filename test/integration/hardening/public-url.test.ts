/**
 * One `{base}` for every layer (src/public-url.ts): PUBLIC_URL, then X-Forwarded-Proto/-Host only
 * from a trusted proxy, then the request. With TRUST_PROXY naming another address (10.9.9.9), a
 * client on loopback is not that proxy: its X-Forwarded-Host must reach no URL — the files upload
 * and information answers, GraphQL's file URLs and topic links, and /api/beta's topic links.
 * With TRUST_PROXY naming loopback, the same headers are the proxy's word and are honoured.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { gql } from '../graphql/helpers';

const FORWARDED = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

/** The URLs each layer gives this sender, for a file and a topic stored beforehand. */
async function urlsSeen(s: TestServer, headers: Record<string, string>): Promise<string[]> {
  const put = await fetch(`${s.url}/upload/base.txt`, {
    method: 'PUT',
    body: 'x',
    headers: { accept: 'application/json', ...headers },
  });
  expect(put.status).toBe(200);
  const upload = (await put.json()) as { url: string; direct_url: string; filename: string };
  const info = await fetch(`${s.url}/${upload.filename}`, { headers: { accept: 'application/json', ...headers } });
  const infoBody = (await info.json()) as { direct_url: string };
  const q = 'query($f: String!) { file(filename: $f) { url directUrl } topics(first: 1) { nodes { commentsUrl } } }';
  const g = await gql(s, q, { f: upload.filename }, undefined, headers);
  expect(g.status).toBe(200);
  const data = g.body.data as {
    file: { url: string; directUrl: string };
    topics: { nodes: { commentsUrl: string }[] };
  };
  const beta = await fetch(`${s.url}/api/beta/topics`, { headers });
  const topics = ((await beta.json()) as { topics: { comments_url: string }[] }).topics;
  return [
    upload.url,
    upload.direct_url,
    infoBody.direct_url,
    data.file.url,
    data.file.directUrl,
    data.topics.nodes[0]!.commentsUrl,
    topics[0]!.comments_url,
  ];
}

describe.each([
  ['an untrusted sender (TRUST_PROXY=10.9.9.9)', '10.9.9.9', (origin: string) => origin],
  ['the trusted proxy (TRUST_PROXY=127.0.0.1)', '127.0.0.1', () => 'https://evil.example'],
])('X-Forwarded-Host from %s', (_name, trust, expectedBase) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: trust });
    const f = new Factory(s);
    await f.topic(await f.user('alice'), { group: 'tech', title: 'Links' });
  });
  afterAll(async () => s?.close());

  it('every layer builds its URLs on the same base', async () => {
    const base = expectedBase(new URL(s.url).origin);
    const urls = await urlsSeen(s, FORWARDED);
    expect(urls).toHaveLength(7);
    for (const u of urls) expect([u, u.startsWith(`${base}/`)]).toEqual([u, true]);
  });
});

describe('PUBLIC_URL', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: '127.0.0.1', PUBLIC_URL: 'https://site.example/' });
    const f = new Factory(s);
    await f.topic(await f.user('alice'), { group: 'tech', title: 'Links' });
  });
  afterAll(async () => s?.close());

  it('wins over forwarded headers, even from the trusted proxy, in every layer', async () => {
    for (const u of await urlsSeen(s, FORWARDED)) expect([u, u.startsWith('https://site.example/')]).toEqual([u, true]);
  });
});
