import { startTestServer, TestServer } from '../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ BODY_LIMIT: '2048' });
});
afterAll(async () => {
  await s?.close();
});

async function gql(query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      data?: Record<string, unknown>;
      errors?: { message: string; extensions?: { code?: string } }[];
    },
  };
}

describe('health and readiness', () => {
  it('/healthz answers while the process is up', async () => {
    const res = await fetch(`${s.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 when the database answers', async () => {
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ready' });
  });
});

describe('GraphQL', () => {
  it('answers serverInfo', async () => {
    const { status, body } = await gql('{ serverInfo { version database } }');
    expect(status).toBe(200);
    expect(body.data).toEqual({
      serverInfo: { version: expect.stringMatching(/^\d+\.\d+\.\d+/), database: expect.any(String) },
    });
  });

  it('redirects a browser GET /graphql to /graphiql', async () => {
    const res = await fetch(`${s.url}/graphql`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/graphiql');
  });

  it("does not serve Apollo's CDN landing page", async () => {
    const res = await fetch(`${s.url}/graphql`, { headers: { accept: 'application/json' } });
    const text = await res.text();
    expect(text).not.toMatch(/apollographql\.com|cdn\./i);
  });

  it('rejects a syntax error with GRAPHQL_PARSE_FAILED, not a 500', async () => {
    const { status, body } = await gql('{ serverInfo { ');
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('refuses operations deeper than the depth limit', async () => {
    const deep = `{ ${'a { '.repeat(40)}b${' }'.repeat(40)} }`;
    const { status, body } = await gql(deep);
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/too deep/);
  });
});

describe('GraphiQL', () => {
  it('serves the page and every asset it references from this server', async () => {
    const res = await fetch(`${s.url}/graphiql`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(5);
    for (const ref of refs) {
      expect(ref.startsWith('/')).toBe(true);
      const asset = await fetch(`${s.url}${ref}`);
      expect(asset.status).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });
});

describe('errors outside the REST layers', () => {
  it('answers unknown routes with a JSON 404', async () => {
    const res = await fetch(`${s.url}/no/such/route`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'Not found' });
  });

  it('answers a malformed JSON body with 400', async () => {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers an oversized JSON body with 413', async () => {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ serverInfo { version } } #${'x'.repeat(5000)}` }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('sets X-Content-Type-Options: nosniff on JSON responses', async () => {
    const res = await fetch(`${s.url}/healthz`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('metrics', () => {
  it('exposes request counts and counts MongoDB commands from the driver', async () => {
    await (await fetch(`${s.url}/readyz`)).text();
    // Readiness pings use a client of their own (a busy pool must not make /readyz fail), so they
    // are not app commands; a topic lookup is.
    expect((await s.countCommands(() => fetch(`${s.url}/readyz`))).commands).toBe(0);
    const { commands } = await s.countCommands(() => fetch(`${s.url}/api/beta/topic/zzzzz`));
    expect(commands).toBeGreaterThanOrEqual(1);
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(text).toMatch(/http_requests_total\{route="\/readyz",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/mongodb_commands_total\{command="find"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_bucket/);
  });
});

describe('slow clients', () => {
  it('drops a client that never finishes its request headers (slow loris)', async () => {
    const slow = await startTestServer({ HEADERS_TIMEOUT: '1' });
    try {
      const net = await import('node:net');
      const port = Number(new URL(slow.url).port);
      const started = Date.now();
      const result = await new Promise<{ data: string; ms: number }>((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '));
        let data = '';
        sock.on('data', (d) => (data += d.toString()));
        sock.on('close', () => resolve({ data, ms: Date.now() - started }));
        sock.setTimeout(10_000, () => sock.destroy());
      });
      expect(result.ms).toBeLessThan(5000);
      expect(result.data).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await slow.close();
    }
  });
});

describe('URLs Fastify refuses before routing', () => {
  const long = 'a'.repeat(1100);
  it.each([
    // An undecodable URL is a bad request (docs/discussion-api.md §2.5).
    ['/api/beta/topic/%ff', 400, 'application/json; charset=utf-8', '[{"message":"Bad request"}]'],
    // A parameter of 1,100 characters reaches its route (maxParamLength is 16 KiB): a user that cannot exist.
    [`/api/beta/user/${long}`, 404, 'application/json; charset=utf-8', '[{"message":"User not found"}]'],
    ['/%ff', 404, 'text/plain; charset=utf-8', 'File not found\n'],
    ['/selif/%ff', 404, 'text/plain; charset=utf-8', 'File not found\n'],
    [`/${long}`, 404, 'text/plain; charset=utf-8', 'File not found\n'],
    ['/graphiql/assets/%ff', 404, 'application/json; charset=utf-8', '{"error":"Not found"}'],
  ])("%s answers in its front door's format without echoing the URL", async (path, status, type, body) => {
    const res = await fetch(`${s.url}${path}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe(type);
    expect(await res.text()).toBe(body);
  });

  it("uses the files API's JSON error when JSON is preferred", async () => {
    const res = await fetch(`${s.url}/%ff`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('{"error":"File not found"}');
    expect(res.headers.get('vary')).toBe('Accept');
  });
});
