/**
 * Header and response safety: no user input reaches a response header unescaped; every response
 * (JSON, HTML, text, files, errors of every layer) carries `X-Content-Type-Options: nosniff`;
 * request header and body size limits answer 431/413; slow clients are dropped.
 */
import net from 'node:net';
import { startTestServer, TestServer } from '../../helpers/server';
import { request } from '../files/helpers';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ FILES_MAX_SIZE: String(64 * 1024), FILES_REQUIRE_API_KEY: 'false' });
});
afterAll(async () => s?.close());

/** Writes raw bytes and returns everything the server sent until it closed (or 10 s passed). */
function raw(bytes: string | Buffer, opts: { keepOpenMs?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1', () => sock.write(bytes));
    let data = '';
    sock.on('data', (d) => (data += d.toString('latin1')));
    sock.on('close', () => resolve(data));
    sock.on('error', () => resolve(data));
    sock.setTimeout(opts.keepOpenMs ?? 10_000, () => sock.destroy());
  });
}

/** Header names and values of a raw response. */
function headersOf(response: string): Map<string, string[]> {
  const head = response.split('\r\n\r\n')[0]!.split('\r\n').slice(1);
  const out = new Map<string, string[]>();
  for (const line of head) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).toLowerCase();
    out.set(name, [...(out.get(name) ?? []), line.slice(i + 1).trim()]);
  }
  return out;
}

describe('user input in response headers', () => {
  it('a multipart filename with CR, LF, quotes and unicode becomes a clean Location', async () => {
    const body =
      `--B\r\nContent-Disposition: form-data; name="file"; filename="a\\"b%0d%0aSet-Cookie: ` +
      `x=1 ünï.txt"\r\n\r\nhello\r\n--B--\r\n`;
    const r = await request(s.url, 'POST', '/upload', {
      headers: { 'content-type': 'multipart/form-data; boundary=B', 'x-requested-with': 'x' },
      body,
    });
    expect(r.status).toBe(303);
    expect(r.headers.location).toMatch(/^\/[a-z0-9.-]+$/);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it(`an access key full of cookie syntax is percent-encoded in Set-Cookie, never breaks out of the \
value`, async () => {
    const key = 'k; Path=/; Domain=evil.example, HttpOnly=0 ünï "q"';
    // A Buffer body: node:http writes a string body in one chunk with the head, re-encoding the
    // head's latin1 header value as UTF-8.
    const up = await request(s.url, 'PUT', '/upload/cookie.txt', {
      headers: { accept: 'application/json', 'files-access-key': Buffer.from(key, 'utf8').toString('latin1') },
      body: Buffer.from('x'),
    });
    expect(up.status).toBe(200);
    const name = up.json().filename!;
    const read = await request(s.url, 'GET', `/${name}?access_key=${encodeURIComponent(key)}`);
    expect(read.status).toBe(200);
    const cookies = read.headers['set-cookie']!;
    expect(cookies).toHaveLength(2);
    for (const c of cookies) {
      const [pair, ...attrs] = c.split('; ');
      expect(pair).toBe(`Files-Access-Key=${encodeURIComponent(key)}`);
      expect(attrs.filter((a) => !/^(Path=\/(selif\/)?[a-z0-9.-]+|HttpOnly)$/.test(a))).toEqual([]);
    }
    // And it works as a cookie (decoded when read).
    const again = await request(s.url, 'GET', `/selif/${name}`, {
      headers: { cookie: `Files-Access-Key=${encodeURIComponent(key)}` },
    });
    expect(again.status).toBe(200);
  });

  it('raw files never carry Content-Disposition; their type is sniffed, not taken from the client', async () => {
    const html = '<!doctype html><script>alert(document.cookie)</script>';
    const up = await request(s.url, 'PUT', '/upload/page.png', {
      headers: { accept: 'application/json', 'content-type': 'image/png' },
      body: html,
    });
    const name = up.json().filename!;
    for (const path of [`/${name}`, `/selif/${name}`]) {
      const r = await request(s.url, 'GET', path);
      expect(r.headers['content-disposition']).toBeUndefined();
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-security-policy']).toMatch(/default-src 'none'.*sandbox$/);
    }
  });

  it('a redirect to GraphiQL keeps the query string encoded, never a new header line', async () => {
    const r = await raw(
      'GET /graphql?query=%7B%7D%0D%0ASet-Cookie:%20x=1&a=%E2%80%AE HTTP/1.1\r\nHost: x\r\n' +
        'Accept: text/html\r\nConnection: close\r\n\r\n',
    );
    expect(r).toMatch(/^HTTP\/1\.1 302/);
    const h = headersOf(r);
    expect(h.get('location')).toEqual(['/graphiql?query=%7B%7D%0D%0ASet-Cookie:%20x=1&a=%E2%80%AE']);
    expect(h.has('set-cookie')).toBe(false);
  });

  it('X-Forwarded-* headers are ignored without TRUST_PROXY', async () => {
    const r = await request(s.url, 'PUT', '/upload/fwd.txt', {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' },
      body: 'x',
    });
    expect(r.text).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/fwd\d*\.txt\n$/);
  });

  it("Retry-After and WWW-Authenticate are the server's own values", async () => {
    const r = await fetch(`${s.url}/api/beta/whoami`, { headers: { authorization: 'Bearer "x\\", error="y' } });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });
});

describe('X-Content-Type-Options: nosniff on every response', () => {
  const long = (c: string) => c.repeat(1100);
  const cases: [string, string, Record<string, string>?][] = [
    ['GET', '/healthz'],
    ['GET', '/readyz'],
    ['GET', '/metrics'],
    ['GET', '/graphiql'],
    ['GET', '/graphiql/app.js'],
    ['GET', '/graphiql/assets/nope'],
    ['GET', '/no/such/route'],
    ['TRACE', '/x.txt'],
    ['PROPFIND', '/api/beta/topics'],
    ['GET', '/api/beta/topics'],
    ['GET', '/api/beta/topics?limit=x'],
    ['GET', '/api/beta/nope'],
    ['DELETE', '/api/beta/topics'],
    ['GET', '/api/beta/topic/%ff'],
    ['GET', `/api/beta/user/${long('u')}`],
    ['GET', '/api/beta/whoami'],
    ['GET', '/graphql?query=%7B__typename%7D', { 'apollo-require-preflight': '1' }],
    ['GET', '/graphql?query=%7B', { 'apollo-require-preflight': '1' }],
    ['GET', '/graphql', { accept: 'text/html' }],
    ['GET', '/nope.txt'],
    ['GET', '/nope.txt', { accept: 'application/json' }],
    ['GET', '/selif/%ff'],
    ['GET', `/selif/${long('n')}`],
    ['PUT', `/upload/${long('n')}`],
    ['PATCH', '/upload'],
    ['OPTIONS', '/upload'],
    ['GET', '/', { expect: 'nonsense' }],
  ];
  it.each(
    cases.map(([m, p, h]) => [m, p.length > 80 ? `${p.slice(0, 40)}…(${p.length} characters)` : p, p, h] as const),
  )('%s %s', async (method, _label, path, headers = {}) => {
    const r = await request(s.url, method, path, { headers });
    expect(r.status).toBeLessThan(500);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('POST bodies answered by every layer: /graphql (JSON, bad JSON, 415), /api/beta/login, /upload', async () => {
    const posts: [string, Record<string, string>, string][] = [
      ['/graphql', { 'content-type': 'application/json' }, '{"query":"{ __typename }"}'],
      ['/graphql', { 'content-type': 'application/json' }, '{"query":'],
      ['/graphql', { 'content-type': 'application/xml' }, '<q/>'],
      ['/api/beta/login', { 'content-type': 'application/json' }, '{}'],
      ['/upload', { 'content-type': 'text/plain' }, 'x'],
    ];
    for (const [path, headers, body] of posts) {
      const r = await request(s.url, 'POST', path, { headers, body });
      expect(r.status).toBeLessThan(500);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('refusals before routing (431, 400) carry it too, and HEAD gets no body', async () => {
    const big = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431/);
    expect(headersOf(big).get('x-content-type-options')).toEqual(['nosniff']);
    expect(big.split('\r\n\r\n')[1]).toBe('{"error":"Request header fields too large"}');
    const head = await raw(`HEAD /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(head).toMatch(/^HTTP\/1\.1 431/);
    expect(head.split('\r\n\r\n')[1]).toBe('');
    const bad = await raw('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(bad).toMatch(/^HTTP\/1\.1 400/);
    expect(headersOf(bad).get('x-content-type-options')).toEqual(['nosniff']);
  });
});

describe('front-door formats of refusals outside the handlers', () => {
  it(`/graphql answers GraphQL errors with a code for bad JSON, unsupported types, a bad Host and unknown \
operations`, async () => {
    const check = async (r: { status: number; json: () => unknown }, status: number, code: string) => {
      expect(r.status).toBe(status);
      const body = r.json() as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe(code);
    };
    await check(
      await request(s.url, 'POST', '/graphql', { headers: { 'content-type': 'application/json' }, body: '{"query":' }),
      400,
      'BAD_REQUEST',
    );
    await check(
      await request(s.url, 'POST', '/graphql', { headers: { 'content-type': 'application/xml' }, body: '<q/>' }),
      415,
      'BAD_REQUEST',
    );
    await check(
      await request(s.url, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json', host: 'a b' },
        body: '{"query":"{ __typename }"}',
      }),
      400,
      'BAD_REQUEST',
    );
    await check(
      await request(s.url, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ __typename }","operationName":"Nope"}',
      }),
      400,
      'OPERATION_RESOLUTION_FAILURE',
    );
  });

  it('an Expect other than 100-continue is ignored: the request is answered by its front door', async () => {
    const r = await request(s.url, 'GET', '/api/beta/topics', { headers: { expect: 'nonsense' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it("unknown methods on files paths answer the files API's 404", async () => {
    const r = await request(s.url, 'TRACE', '/some.txt');
    expect(r.status).toBe(404);
    expect(r.text).toBe('Not found\n');
    const j = await request(s.url, 'PROPFIND', '/selif/some.txt', { headers: { accept: 'application/json' } });
    expect(j.json()).toEqual({ error: 'Not found' });
  });

  it('PUT /upload/{name}: a name of 1,100 characters is judged by its final form (§4.5)', async () => {
    const r = await request(s.url, 'PUT', `/upload/${'n'.repeat(1100)}.txt`, { body: 'x' });
    expect(r.status).toBe(400);
    expect(r.text).toBe('Filename too long\n');
    const spaces = await request(s.url, 'PUT', `/upload/short.txt${'%20'.repeat(1100)}`, { body: 'x' });
    expect(spaces.status).toBe(200);
    expect(spaces.text).toBe(`${s.url}/short.txt\n`);
  });
});

describe('size limits', () => {
  it('request headers over 16 KiB → 431', async () => {
    const r = await request(s.url, 'GET', '/healthz', { headers: { 'x-big': 'a'.repeat(17 * 1024) } }).catch(
      (e: Error) => ({ status: 0, error: e }),
    );
    expect(r.status).toBe(431);
  });

  it("bodies over their limits → 413 in each front door's format", async () => {
    const gql = await request(s.url, 'POST', '/graphql', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename } #${'x'.repeat(2 * 1024 * 1024)}` }),
    });
    expect(gql.status).toBe(413);
    expect((gql.json() as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    const login = await request(s.url, 'POST', '/api/beta/login', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'a', password: 'x'.repeat(100 * 1024) }),
    });
    expect(login.status).toBe(413);
    expect(login.json()).toEqual([{ message: 'Request body is too large' }]);
    const put = await request(s.url, 'PUT', '/upload/big.bin', { body: Buffer.alloc(64 * 1024 + 1) });
    expect(put.status).toBe(413);
    expect(put.text).toBe('File too large\n');
    // A body declared far beyond the limit is refused at once, before any of it is read, with
    // `Connection: close` (rest/files/unread-body.ts: more than 1 MiB is not drained). The client
    // sends the headers only, so no unread byte can turn the server's close into a reset: the
    // whole answer must arrive, then the end of the connection.
    const head =
      'PUT /upload/big.bin HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Length: 1000000000000\r\n\r\n';
    const declared = await rawExchange(s.url, head);
    expect(declared.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(declared.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(JSON.parse(declared.slice(declared.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'File too large' });
  });
});

describe('slow clients', () => {
  it('a client that sends its body too slowly is dropped at REQUEST_TIMEOUT', async () => {
    const slow = await startTestServer({ REQUEST_TIMEOUT: '2', HEADERS_TIMEOUT: '2' });
    try {
      const started = Date.now();
      const data = await new Promise<string>((resolve) => {
        const sock = net.connect(Number(new URL(slow.url).port), '127.0.0.1', () => {
          sock.write('PUT /upload/slow.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n');
          const timer = setInterval(() => (sock.writable ? sock.write('a') : clearInterval(timer)), 200);
          sock.on('close', () => clearInterval(timer));
        });
        let d = '';
        sock.on('data', (c) => (d += c.toString()));
        sock.on('close', () => resolve(d));
        sock.on('error', () => resolve(d));
        sock.setTimeout(15_000, () => sock.destroy());
      });
      expect(Date.now() - started).toBeLessThan(8000);
      expect(data === '' || /^HTTP\/1\.1 (408|400)/.test(data)).toBe(true);
      expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

/** Writes `head` on a new connection; everything the server sends until it closes it (rejects on a reset). */
function rawExchange(url: string, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const sock = net.connect(Number(new URL(url).port), '127.0.0.1', () => sock.write(head));
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    sock.on('error', reject);
    sock.setTimeout(10_000, () => reject(new Error('no answer within 10 s')));
  });
}
