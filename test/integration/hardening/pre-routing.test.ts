/**
 * Answers made before routing keep the format of the front door that owns the path (issue 12;
 * docs/discussion-api.md §1.1, §2.5; docs/files-api.md §1, §3): requests Node cannot parse
 * (431, 400), an undecodable URL, a body over the limit, and methods no route declares (QUERY
 * with or without a Content-Type, PROPFIND) — the error array under /api/beta, GraphQL's
 * `{"errors":[…]}` on /graphql, `{"error":…}` or text on Files-* paths. Raw sockets (node:net).
 */
import net from 'node:net';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` as is and reads the answer until the server closes (requests say Connection: close).
 * `later`, 300 ms after: more bytes, so that Node has routed the request before it reads them, or
 * 'end' to half-close the socket there.
 */
function raw(request: string, later?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1', () => {
      sock.write(request);
      if (later !== undefined) setTimeout(() => (later === 'end' ? sock.end() : sock.write(later)), 300);
    });
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    sock.on('error', reject);
    // A server that never closes fails the test instead of hanging it; cleared once it closes, so
    // no timer outlives the test (Jest then reported a worker that failed to exit gracefully).
    const timer = setTimeout(() => sock.destroy(), 5000);
    sock.on('close', () => {
      clearTimeout(timer);
      const end = data.indexOf('\r\n\r\n');
      const lines = data.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1))
        headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ status: Number(lines[0]!.split(' ')[1]), headers, body: data.slice(end + 4) });
    });
  });
}

const LONG = 'a'.repeat(20_000);
const get = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${extra}\r\n`;
const JSON_TYPE = 'application/json; charset=utf-8';

describe('/api/beta: an error array whatever layer answers', () => {
  const array = (a: Answer, status: number, message: string) => {
    expect([a.status, a.headers['content-type'], a.body]).toEqual([status, JSON_TYPE, JSON.stringify([{ message }])]);
  };

  it('431 for a URL or headers over 16 KiB', async () => {
    array(await raw(get(`/api/beta/topics?tag=${LONG}`)), 431, 'Request header fields too large');
    array(await raw(get('/api/beta/topics', `X-Big: ${LONG}\r\n`)), 431, 'Request header fields too large');
  });

  it('400 for Content-Length with Transfer-Encoding, a malformed request line, an undecodable URL', async () => {
    array(
      await raw(
        'POST /api/beta/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ),
      400,
      'Bad request',
    );
    array(await raw('FOO@ /api/beta/topics HTTP/1.1\r\nHost: x\r\n\r\n'), 400, 'Bad request');
    array(await raw(get('/api/beta/topic/%zz')), 400, 'Bad request');
  });

  it('413 for a login body over BODY_LIMIT', async () => {
    const a = await raw(
      `POST /api/beta/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: 2000000\r\nConnection: close\r\n\r\n{}`,
    );
    array(a, 413, 'Request body is too large');
  });

  it('405 with Allow for QUERY (with or without a Content-Type) and other methods; 404 on unknown paths', async () => {
    const query = (path: string, extra = '') =>
      raw(`QUERY ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${extra}\r\n`);
    for (const a of [
      await query('/api/beta/topics'),
      await query('/api/beta/topics', 'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'),
    ]) {
      array(a, 405, 'Method not allowed');
      expect(a.headers.allow).toBe('GET, HEAD');
    }
    const login = await query('/api/beta/login');
    array(login, 405, 'Method not allowed');
    expect(login.headers.allow).toBe('POST');
    const propfind = await raw('PROPFIND /api/beta/topic/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    array(propfind, 405, 'Method not allowed');
    expect(propfind.headers.allow).toBe('GET, HEAD');
    array(await query('/api/beta/nowhere'), 404, 'Not found');
  });

  it('HEAD refused before routing: the status and headers, no body', async () => {
    const a = await raw(`HEAD /api/beta/topics?tag=${LONG} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect([a.status, a.headers['content-type'], a.headers['content-length'], a.body]).toEqual([
      431,
      JSON_TYPE,
      '0',
      '',
    ]);
  });
});

describe('/graphql: GraphQL error format', () => {
  const errors = (a: Answer, status: number, code: string) => {
    expect([a.status, a.headers['content-type']]).toEqual([status, JSON_TYPE]);
    const body = JSON.parse(a.body) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]!.extensions.code).toBe(code);
  };

  it('431, 400 and 405 (QUERY, PUT) with Allow', async () => {
    errors(await raw(get(`/graphql?query=${LONG}`)), 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    errors(
      await raw(
        'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ),
      400,
      'BAD_REQUEST',
    );
    for (const method of ['QUERY', 'PUT']) {
      const a = await raw(`${method} /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      errors(a, 405, 'METHOD_NOT_ALLOWED');
      expect(a.headers.allow).toBe('GET, POST, OPTIONS');
    }
  });
});

describe('Files-* paths: the files format (§3)', () => {
  it('431 as JSON when preferred, else as text, with the §2.4 headers', async () => {
    const json = await raw(get(`/selif/${LONG}`, 'Accept: application/json\r\n'));
    expect([json.status, json.headers['content-type'], json.body]).toEqual([
      431,
      JSON_TYPE,
      '{"error":"Request header fields too large"}',
    ]);
    expect(json.headers['x-frame-options']).toBe('SAMEORIGIN');
    const text = await raw(get(`/x.txt?${LONG}`));
    expect([text.status, text.headers['content-type'], text.body]).toEqual([
      431,
      'text/plain; charset=utf-8',
      'Request header fields too large\n',
    ]);
  });

  it('QUERY on an upload or file path: 404 Not found (§1), whatever its Content-Type', async () => {
    for (const extra of ['', 'Content-Type: text/plain\r\nContent-Length: 0\r\n']) {
      const a = await raw(
        `QUERY /upload HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n${extra}\r\n`,
      );
      expect([a.status, a.body]).toEqual([404, '{"error":"Not found"}']);
    }
    const text = await raw('QUERY /x.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect([text.status, text.body]).toEqual([404, 'Not found\n']);
  });

  it('a malformed request line on /upload: 400 Bad request in the files format', async () => {
    const a = await raw('FOO@ /upload HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n');
    expect([a.status, a.body]).toEqual([400, '{"error":"Bad request"}']);
  });

  it('on /upload and /upload/{name} too: text unless JSON is preferred, with the §2.4 headers', async () => {
    const both = 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n';
    for (const line of ['PUT /upload/x.txt', 'POST /upload', 'PUT /upload/']) {
      const a = await raw(`${line} HTTP/1.1\r\nHost: x\r\n${both}`);
      expect([a.status, a.headers['content-type'], a.body]).toEqual([
        400,
        'text/plain; charset=utf-8',
        'Bad request\n',
      ]);
      expect(a.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
    const big = await raw(`PUT /upload/x.txt HTTP/1.1\r\nHost: x\r\nX-Big: ${LONG}\r\n\r\n`);
    expect([big.status, big.body]).toEqual([431, 'Request header fields too large\n']);
  });
});

describe('after the head was read: a body Node cannot parse, or cut short, and a missing Host', () => {
  const graphqlBad = JSON.stringify({ errors: [{ message: 'Bad request', extensions: { code: 'BAD_REQUEST' } }] });
  const chunked = (method: string, path: string, extra = '') =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}` +
    'Transfer-Encoding: chunked\r\n\r\n';

  it("a bad chunk size answers 400 in the format of the request's front door", async () => {
    const g = await raw(chunked('POST', '/graphql'), 'zz\r\n');
    expect([g.status, g.headers['content-type'], g.body]).toEqual([400, JSON_TYPE, graphqlBad]);
    const b = await raw(chunked('POST', '/api/beta/login'), 'zz\r\n');
    expect([b.status, b.headers['content-type'], b.body]).toEqual([400, JSON_TYPE, '[{"message":"Bad request"}]']);
    const f = await raw(chunked('PUT', '/upload/a.txt', 'Accept: application/json\r\n'), 'zz\r\n');
    expect([f.status, f.headers['content-type'], f.body]).toEqual([400, JSON_TYPE, '{"error":"Bad request"}']);
  });

  it("a body cut short by a half-close answers 400 in the request's front door's format", async () => {
    const b = await raw('POST /api/beta/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"username":', 'end');
    expect([b.status, b.body]).toEqual([400, '[{"message":"Bad request"}]']);
  });

  it('an HTTP/1.1 request without Host: 400 in the format of each front door (HTTP/1.0 needs none)', async () => {
    const noHost = (target: string, method = 'GET') => `${method} ${target} HTTP/1.1\r\nConnection: close\r\n\r\n`;
    const b = await raw(noHost('/api/beta/topics'));
    expect([b.status, b.headers['content-type'], b.body]).toEqual([400, JSON_TYPE, '[{"message":"Bad request"}]']);
    const g = await raw(noHost('/graphql?query=%7B__typename%7D'));
    expect([g.status, g.headers['content-type'], g.body]).toEqual([400, JSON_TYPE, graphqlBad]);
    const f = await raw(noHost('/some.txt'));
    expect([f.status, f.headers['content-type'], f.body]).toEqual([400, 'text/plain; charset=utf-8', 'Bad request\n']);
    expect(f.headers['x-frame-options']).toBe('SAMEORIGIN');
    const h = await raw(noHost('/some.txt', 'HEAD'));
    expect([h.status, h.body]).toEqual([400, '']);
    const old = await raw('GET /api/beta/topics HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });
});
