/**
 * A seeded fuzz run against the real server: a few thousand random and malformed requests to every
 * route (parameters from a corpus of empty, huge, unicode, control-character, traversal, script and
 * SQL/NoSQL-looking values; random headers; random multipart, url-encoded and raw bodies; random
 * GraphQL documents and variables), several at a time. Every response must be
 *
 * - not a 5xx,
 * - in the format of its front door: the error array on /api/beta; `{"error": …}` or `message\n`
 *   (by the Accept preference) on the files API; `{"errors": [{…, extensions: {code}}]}` on
 *   /graphql; `{"error": …}` elsewhere,
 * - marked `X-Content-Type-Options: nosniff`,
 * - answered within a few seconds;
 *
 * and the server must still be ready afterwards. FUZZ_SEED reproduces a run (the failing request is
 * printed with its index); FUZZ_REQUESTS changes its length.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory } from '../../helpers/factories';
import { prefersJson } from '../../../src/rest/files/accept';

jest.setTimeout(240_000);

const SEED = Number(process.env.FUZZ_SEED ?? 7_2026_11);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const SLOW_MS = 5000;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof rng>;

// ---------------------------------------------------------------------------------------------
// The corpus

const VALUES = [
  '',
  ' ',
  '0',
  '1',
  '-1',
  '007',
  '101',
  '1e3',
  '99999999999999999999999999',
  'NaN',
  'null',
  'true',
  'all',
  '4h',
  '2D',
  '0h',
  'zz',
  'ZZ',
  '1a',
  't-1',
  'c-1',
  'x-1',
  'activity',
  'votes',
  'new',
  'relevance',
  'ask',
  'ask.survey',
  'hello world',
  'a..b',
  '.',
  '..',
  '../',
  '../../etc/passwd',
  '..\\..\\boot.ini',
  '%2e%2e%2f',
  '....//',
  '/etc/passwd',
  '<script>alert(1)</script>',
  '"><svg onload=alert(1)>',
  "javascript:alert('x')",
  "' OR 1=1 --",
  '1; DROP TABLE topics',
  '{"$ne":null}',
  '{"$gt":""}',
  '{"$where":"sleep(5000)"}',
  '$ne',
  '[$regex]',
  '__proto__',
  'constructor',
  '\u0000',
  '\u0007\u001b[31m',
  '\r\n',
  '\u202e\u202d',
  '\ufeff',
  '\ud83d\ude00',
  'Ünïcödé',
  '日本語',
  'İstanbul',
  'ß'.repeat(50),
  'a'.repeat(300),
  'x'.repeat(5000),
  'y'.repeat(20000),
];

function value(r: Rng): string {
  if (r.chance(0.1)) return randomText(r, r.int(40));
  if (r.chance(0.1)) return r.pick(VALUES) + r.pick(VALUES);
  return r.pick(VALUES);
}

function randomText(r: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (k < 5) s += String.fromCharCode(0x20 + r.int(95));
    else if (k < 7) s += String.fromCharCode(r.int(0x20));
    else if (k < 9) s += String.fromCodePoint(0xa0 + r.int(0x2000));
    else s += String.fromCodePoint(0x1f300 + r.int(200));
  }
  return s;
}

function randomBytes(r: Rng, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

/** encodeURIComponent, except that a lone surrogate is sent as the bytes of its (invalid) UTF-8 form. */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return [...v].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
}

/** A URL path segment: percent-encoded usually, sometimes raw ASCII punctuation left in. */
function segment(r: Rng): string {
  const v = value(r);
  if (r.chance(0.15)) return v.replace(/[^\x21-\x7e]/gu, enc).replace(/[?#]/g, enc);
  if (r.chance(0.05)) return `${enc(v)}%ED%A0%80`;
  return enc(v);
}

function query(r: Rng, names: readonly string[]): string {
  const parts: string[] = [];
  const n = r.int(4);
  for (let i = 0; i < n; i++) {
    let name = r.chance(0.8)
      ? r.pick(names)
      : r.pick(['x', 'access_key', 'query', 'variables', 'extensions', 'operationName']);
    if (r.chance(0.15)) name += r.pick(['[$ne]', '[$gt]', '[]', '[0]', '[__proto__]', '.$where']);
    const v = value(r);
    const encoded = r.chance(0.9)
      ? enc(v)
      : r.chance(0.5)
        ? v.replace(/[^\x21-\x7e]/gu, enc).replace(/[#]/g, '%23')
        : `${enc(v)}${r.pick(['%', '%zz', '%E0%A4', '%ED%A0%80', '%00', '+'])}`;
    parts.push(`${enc(name).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encoded}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

// ---------------------------------------------------------------------------------------------
// Requests

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

interface World {
  token: string;
  topicIds: string[];
  usernames: string[];
  files: string[];
}

const ACCEPTS = [
  'application/json',
  '*/*',
  'text/html',
  'text/plain, application/json',
  'application/json;q=0.5, text/plain',
  'application/json;q=abc',
  'text/html;q=0.9, application/json',
  '',
];

function headers(r: Rng, w: World): Record<string, string> {
  const h: Record<string, string> = {};
  if (r.chance(0.7)) h.accept = r.chance(0.85) ? r.pick(ACCEPTS) : ascii(value(r));
  if (r.chance(0.2)) {
    h.authorization = r.pick([
      `Bearer ${w.token}`,
      'Bearer x.y.z',
      'Bearer',
      'Basic Zm9vOmJhcg==',
      `Bearer ${w.token}x`,
      'bearer  ',
      ascii(value(r)),
      `Bearer ${'a'.repeat(2000)}`,
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.',
    ]);
  }
  const extras: [string, () => string][] = [
    ['files-randomize', () => r.pick(['yes', 'no', '1', ascii(value(r))])],
    ['files-delete-key', () => ascii(value(r))],
    ['linx-delete-key', () => ascii(value(r))],
    ['files-expiry', () => r.pick(['60', '0', '-5', '1m', '18446744073709551616', ascii(value(r))])],
    ['files-access-key', () => ascii(value(r))],
    ['files-api-key', () => ascii(value(r))],
    [
      'range',
      () =>
        r.pick([
          'bytes=0-3',
          'bytes=-1',
          'bytes=5-',
          'bytes=0-0,2-3',
          'bytes=99999999999999999999-',
          'items=0-1',
          'bytes=3-1',
          ascii(value(r)),
        ]),
    ],
    ['if-range', () => ascii(value(r))],
    ['if-none-match', () => r.pick(['*', 'W/"x"', '"a", "b"', ascii(value(r))])],
    ['if-match', () => r.pick(['*', '"nope"', ascii(value(r))])],
    ['if-modified-since', () => r.pick(['Sun, 06 Nov 1994 08:49:37 GMT', '1', ascii(value(r))])],
    ['if-unmodified-since', () => r.pick(['Sun, 06 Nov 1994 08:49:37 GMT', 'May 5', ascii(value(r))])],
    [
      'cookie',
      () => `Files-Access-Key=${r.pick([enc(value(r)), '%ED%A0%80', '%', '%E0%A4%A', '"quoted"', ascii(value(r))])}`,
    ],
    ['origin', () => r.pick(['null', 'http://evil.example', 'http://127.0.0.1', ascii(value(r))])],
    ['referer', () => ascii(value(r))],
    ['x-requested-with', () => 'XMLHttpRequest'],
    ['x-forwarded-host', () => ascii(value(r))],
    ['x-forwarded-proto', () => ascii(value(r))],
    ['x-forwarded-for', () => ascii(value(r))],
    ['apollo-require-preflight', () => 'true'],
    ['x-apollo-operation-name', () => ascii(value(r))],
    ['expect', () => r.pick(['100-continue', 'nonsense'])],
    ['accept-encoding', () => r.pick(['gzip', 'br', '*', ascii(value(r))])],
    ['content-encoding', () => r.pick(['gzip', 'identity', 'x'])],
    ['host', () => r.pick(['localhost', 'evil.example', 'a'.repeat(300), ascii(value(r))])],
  ];
  for (const [name, make] of extras) if (r.chance(0.08)) h[name] = make();
  return h;
}

/** Header values must be visible ASCII or tabs/spaces for node:http to send them at all. */
function ascii(v: string): string {
  return v.replace(/[^\x20-\x7e\t]/g, '').slice(0, 6000);
}

function jsonBody(r: Rng): Buffer {
  const options: (() => string)[] = [
    () => JSON.stringify({ username: value(r), password: value(r) }),
    () => JSON.stringify({ username: { $ne: null }, password: { $gt: '' } }),
    () => JSON.stringify({ username: [value(r)], password: 1 }),
    () => '{"__proto__": {"admin": true}, "username": "a", "password": "b"}',
    () => '{"constructor": {"prototype": {"x": 1}}}',
    () => '{"username": "alice", "password": "x"'.slice(0, r.int(30)),
    () => '['.repeat(10000) + ']'.repeat(10000),
    () => value(r),
    () => 'null',
    () => JSON.stringify(value(r)),
  ];
  return Buffer.from(r.pick(options)());
}

function multipart(r: Rng, graphql: boolean): { body: Buffer; contentType: string } {
  const boundary = r.chance(0.9) ? `----fuzz${r.int(1e9)}` : ascii(value(r)).slice(0, 80);
  const parts: Buffer[] = [];
  const n = r.int(5);
  for (let i = 0; i < n; i++) {
    const name = graphql
      ? r.pick(['operations', 'map', '0', '1', 'file', ascii(value(r))])
      : r.pick(['file', 'expires', 'access_key', 'randomize', 'content', ascii(value(r))]);
    const filename = r.chance(0.5)
      ? `; filename="${ascii(value(r)).replace(/"/g, '')}"`
      : r.chance(0.2)
        ? `; filename*=UTF-8''${enc(value(r))}`
        : '';
    let content: Buffer;
    if (graphql && name === 'operations')
      content = Buffer.from(
        r.chance(0.7)
          ? JSON.stringify({ query: graphqlDocument(r), variables: { file: null, files: [null, null] } })
          : value(r),
      );
    else if (graphql && name === 'map')
      content = Buffer.from(
        r.chance(0.7)
          ? JSON.stringify({
              '0': [r.pick(['variables.file', 'variables.files.0', 'variables.__proto__.x', 'x', 'variables'])],
            })
          : value(r),
      );
    else content = r.chance(0.5) ? randomBytes(r, r.int(2000)) : Buffer.from(value(r));
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, '')}"${filename}\r\n` +
      `${r.chance(0.3) ? `Content-Type: ${ascii(value(r)) || 'text/plain'}\r\n` : ''}\r\n`;
    parts.push(Buffer.from(head), content, Buffer.from('\r\n'));
  }
  if (r.chance(0.85)) parts.push(Buffer.from(`--${boundary}--\r\n`));
  if (r.chance(0.1)) parts.push(randomBytes(r, r.int(300)));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

const FIELDS = [
  '__typename',
  'serverInfo { version database }',
  'viewer { username }',
  'groups { path }',
  'topics(first: 2) { edges { node { id title } } }',
  'topic(id: "1") { id comments { id children { id } } }',
  'user(username: "alice") { username }',
  'file(filename: "x.txt") { filename }',
  '__schema { types { name } }',
  'nope',
  'topics(first: 1000) { edges { cursor } }',
  'topics(tag: "{\\"$ne\\":null}") { edges { cursor } }',
];
const MUTATIONS = [
  'login(username: "alice", password: "x") { token }',
  'register(username: "a", password: "b") { token }',
  'logoutEverywhere',
  'deleteFile(filename: "x.txt", deleteKey: "y")',
  'uploadFile(file: $file) { filename }',
];

function graphqlDocument(r: Rng): string {
  const k = r.int(10);
  if (k === 0) return value(r);
  if (k === 1) return `{ ${r.pick(FIELDS)}`;
  if (k === 2) return `mutation($file: Upload) { ${r.pick(MUTATIONS)} }`;
  if (k === 3) return `{ ${Array.from({ length: 1 + r.int(300) }, (_, i) => `a${i}: ${r.pick(FIELDS)}`).join(' ')} }`;
  if (k === 4)
    return (
      `{ ...F } fragment F on Query { ${r.pick(FIELDS)} ...${r.pick(['F', 'G'])} } fragment G on ` +
      `Query { __typename }`
    );
  if (k === 5) return `{ __typename ${'@include(if: true) '.repeat(r.int(200))} }`;
  if (k === 6)
    return (
      `query Q($v: ${r.pick(['String', 'Int', 'ID!', '[String]', 'Boolean'])}) ` + '{ user(username: $v) { username } }'
    );
  return `{ ${Array.from({ length: 1 + r.int(4) }, () => r.pick(FIELDS)).join(' ')} }`;
}

function graphqlRequest(r: Rng, w: World): FuzzRequest {
  const h = headers(r, w);
  const kind = r.int(10);
  const variables = () =>
    r.pick<unknown>([
      {},
      { v: value(r) },
      { v: { $ne: null } },
      { v: [1, 2] },
      { v: 7 },
      null,
      value(r),
      { file: null },
    ]);
  if (kind < 6) {
    const body: Record<string, unknown> = { query: graphqlDocument(r) };
    if (r.chance(0.6)) body.variables = variables();
    if (r.chance(0.1)) body.operationName = value(r);
    if (r.chance(0.1))
      body.extensions = { persistedQuery: { version: 1, sha256Hash: r.pick(['0'.repeat(64), value(r)]) } };
    const text = r.chance(0.05)
      ? JSON.stringify(Array.from({ length: 1 + r.int(15) }, () => body))
      : JSON.stringify(body);
    return {
      method: 'POST',
      path: '/graphql',
      headers: {
        ...h,
        'content-type': r.chance(0.9)
          ? 'application/json'
          : r.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/graphql', ascii(value(r))]),
      },
      body: Buffer.from(r.chance(0.05) ? text.slice(0, r.int(text.length)) : text),
    };
  }
  if (kind < 8) {
    const q = new URLSearchParams({ query: graphqlDocument(r) });
    if (r.chance(0.5)) q.set('variables', r.chance(0.7) ? JSON.stringify(variables()) : value(r));
    return { method: 'GET', path: `/graphql?${q.toString()}`, headers: h };
  }
  const m = multipart(r, true);
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...h, 'content-type': m.contentType, 'apollo-require-preflight': 'true' },
    body: m.body,
  };
}

function betaRequest(r: Rng, w: World): FuzzRequest {
  const h = headers(r, w);
  const user = () => (r.chance(0.6) ? r.pick(w.usernames) : segment(r));
  const topic = () => (r.chance(0.5) ? r.pick(w.topicIds) : segment(r));
  const paths = [
    () => `/api/beta/topics${query(r, ['limit', 'before', 'after', 'period', 'tag', 'order'])}`,
    () => `/api/beta/topic/${topic()}${query(r, ['order'])}`,
    () => `/api/beta/user/${user()}${query(r, ['limit', 'before', 'after'])}`,
    () => `/api/beta/user/${user()}/topics${query(r, ['limit', 'before', 'after'])}`,
    () => `/api/beta/user/${user()}/comments${query(r, ['limit', 'before', 'after'])}`,
    () => `/api/beta/whoami${query(r, ['x'])}`,
    () => `/api/beta/${segment(r)}`,
    () => `/api/beta/topics/`,
    () => `/api/beta/user/${segment(r)}/${segment(r)}`,
    () => '/api/beta/openapi.json',
  ];
  if (r.chance(0.15)) {
    const body = r.chance(0.8) ? jsonBody(r) : randomBytes(r, r.int(500));
    const ct = r.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', '', ascii(value(r))]);
    return {
      method: 'POST',
      path: r.chance(0.9) ? '/api/beta/login' : r.pick(paths)(),
      headers: { ...h, ...(ct ? { 'content-type': ct } : {}) },
      body,
    };
  }
  return {
    method: r.pick(['GET', 'GET', 'GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']),
    path: r.pick(paths)(),
    headers: h,
  };
}

function filesRequest(r: Rng, w: World): FuzzRequest {
  const h = headers(r, w);
  const file = () => (r.chance(0.5) && w.files.length ? r.pick(w.files) : segment(r));
  const k = r.int(10);
  if (k < 3) {
    const body = r.chance(0.1) ? Buffer.alloc(0) : r.chance(0.5) ? randomBytes(r, r.int(4000)) : Buffer.from(value(r));
    return {
      method: 'PUT',
      path: r.pick(['/upload', '/upload/', `/upload/${segment(r)}`, `/upload/${file()}`]),
      headers: h,
      body,
    };
  }
  if (k < 5) {
    if (r.chance(0.5)) {
      const m = multipart(r, false);
      return {
        method: 'POST',
        path: r.pick(['/upload', '/upload/']),
        headers: { ...h, 'content-type': m.contentType, 'x-requested-with': 'fuzz' },
        body: m.body,
      };
    }
    const form = new URLSearchParams();
    for (const n of ['content', 'filename', 'extension', 'expires', 'access_key', 'randomize', 'x'])
      if (r.chance(0.5)) form.append(n, value(r));
    const raw = r.chance(0.8)
      ? form.toString()
      : `content=${r.pick(['%', '%zz', '%E0%A4', '+++', '&&&=='])}&filename=${value(r).slice(0, 20)}`;
    return {
      method: 'POST',
      path: '/upload',
      headers: {
        ...h,
        'content-type': r.pick(['application/x-www-form-urlencoded', 'text/plain', ascii(value(r))]),
        'x-requested-with': 'fuzz',
      },
      body: Buffer.from(raw),
    };
  }
  const paths = [
    () => `/${file()}${query(r, ['access_key'])}`,
    () => `/selif/${file()}${query(r, ['access_key'])}`,
    () => `/selif/${segment(r)}/${segment(r)}`,
  ];
  const method = r.pick(['GET', 'GET', 'HEAD', 'DELETE', 'OPTIONS', 'POST', 'PATCH', 'PUT']);
  const req: FuzzRequest = { method, path: r.pick(paths)(), headers: h };
  if (method === 'GET' && r.chance(0.2)) {
    req.headers['content-type'] = 'application/x-www-form-urlencoded';
    req.body = Buffer.from(`access_key=${enc(value(r))}`);
  }
  return req;
}

function otherRequest(r: Rng, w: World): FuzzRequest {
  const paths = [
    '/healthz',
    '/readyz',
    '/metrics',
    '/graphiql',
    '/graphiql/app.js',
    `/graphiql/assets/${segment(r)}`,
    `/${segment(r)}/${segment(r)}`,
    `/static/${segment(r)}`,
    '/',
    `//${segment(r)}`,
    `/${segment(r)}?${segment(r)}`,
  ];
  return {
    method: r.pick(['GET', 'GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND']),
    path: r.pick(paths),
    headers: headers(r, w),
  };
}

function nextRequest(r: Rng, w: World): FuzzRequest {
  const k = r.int(10);
  if (k < 4) return betaRequest(r, w);
  if (k < 7) return filesRequest(r, w);
  if (k < 9) return graphqlRequest(r, w);
  return otherRequest(r, w);
}

// ---------------------------------------------------------------------------------------------
// Sending and checking

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

function send(base: URL, req: FuzzRequest, agent: http.Agent): Promise<Answer | { clientError: string }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let settled = false;
    const done = (v: Answer | { clientError: string }) => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    };
    let r: http.ClientRequest;
    try {
      const h: Record<string, string | number> = { ...req.headers };
      if (req.body) h['content-length'] = req.body.length;
      // A head over Node's 16 KiB limit is answered 431 and its connection closed: send it alone
      // (a keep-alive agent could otherwise hand the closed socket to the next request).
      const big = req.path.length + JSON.stringify(h).length > 15_000;
      r = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: req.method,
          path: req.path,
          headers: h,
          agent: big ? false : agent,
          timeout: 20_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            done({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks),
              ms: Date.now() - started,
            }),
          );
          res.on('error', (e) => done({ clientError: `response: ${e.message}` }));
        },
      );
    } catch (e) {
      // node:http refused to send it (an invalid header or path): nothing reached the server.
      done({ clientError: `not sent: ${(e as Error).message}` });
      return;
    }
    r.on('timeout', () => r.destroy(new Error('client timeout')));
    r.on('error', (e) => done({ clientError: e.message }));
    r.end(req.body);
  });
}

type Door = 'beta' | 'files' | 'graphql' | 'other';

function doorOf(method: string, path: string): Door {
  const p = path.split('?')[0]!;
  if (p === '/api/beta' || p.startsWith('/api/beta/')) return 'beta';
  if (p === '/graphql' && ['GET', 'POST', 'OPTIONS', 'HEAD'].includes(method)) return 'graphql';
  // The server's own GET routes; any other method on a one-segment path is the files API's (docs/files-api.md §1).
  if (
    (method === 'GET' || method === 'HEAD') &&
    (/^\/(healthz|readyz|metrics|graphiql)$/.test(p) || p.startsWith('/graphiql/'))
  )
    return 'other';
  // Everything under /upload and /selif is the files API's, however deep (docs/files-api.md §1).
  if (/^\/(upload|selif)(\/.*)?$/.test(p) || /^\/[^/]*$/.test(p)) return 'files';
  return 'other';
}

/** Problems with one answer; empty when it is fine. */
function check(req: FuzzRequest, a: Answer): string[] {
  const problems: string[] = [];
  if (a.status >= 500) problems.push(`status ${a.status}`);
  if (a.ms > SLOW_MS) problems.push(`slow: ${a.ms} ms`);
  if (a.headers['x-content-type-options'] !== 'nosniff' && a.status !== 431 && a.status !== 408)
    problems.push('no nosniff');
  if (a.status < 400 || req.method === 'HEAD' || a.status === 431) return problems;
  const type = String(a.headers['content-type'] ?? '');
  const text = a.body.toString('utf8');
  let json: any;
  const parse = () => {
    try {
      json = JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  const door = doorOf(req.method, req.path);
  if (door === 'beta') {
    if (type !== 'application/json; charset=utf-8') problems.push(`beta content-type ${type}`);
    if (!parse() || !Array.isArray(json) || json.length === 0) problems.push('beta error is not an array');
    else
      for (const item of json) {
        if (typeof item?.message !== 'string') problems.push('beta item without message');
        for (const k of Object.keys(item))
          if (!['message', 'field', 'exception'].includes(k) || typeof item[k] !== 'string')
            problems.push(`beta item key ${k}`);
      }
  } else if (door === 'files') {
    if (prefersJson(req.headers.accept)) {
      if (type !== 'application/json; charset=utf-8') problems.push(`files JSON content-type ${type}`);
      if (!parse() || typeof json?.error !== 'string' || Object.keys(json).length !== 1)
        problems.push('files error is not {"error": …}');
    } else {
      if (type !== 'text/plain; charset=utf-8') problems.push(`files text content-type ${type}`);
      if (!text.endsWith('\n') || text.slice(0, -1).includes('\n') || text.length < 2)
        problems.push('files error is not one line of text');
    }
  } else if (door === 'graphql') {
    if (!type.startsWith('application/json') && !type.startsWith('application/graphql-response+json'))
      problems.push(`graphql content-type ${type}`);
    const results = parse() ? (Array.isArray(json) ? json : [json]) : null;
    if (!results) problems.push('graphql error is not JSON');
    else
      for (const res of results) {
        if (!Array.isArray(res?.errors) || res.errors.length === 0) problems.push('graphql error without errors');
        else
          for (const e of res.errors)
            if (typeof e?.message !== 'string' || typeof e?.extensions?.code !== 'string')
              problems.push('graphql error without extensions.code');
      }
  } else {
    if (!type.startsWith('application/json')) problems.push(`content-type ${type}`);
    else if (!parse() || (typeof json?.error !== 'string' && typeof json?.status !== 'string'))
      problems.push('error is not {"error": …}');
  }
  return problems;
}

/** Raw bytes no HTTP client would send: the server must answer 4xx or close, never crash. */
const GARBAGE = [
  'GET / HTTP/1.1\r\n\r\n',
  'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n',
  'GARBAGE\r\n\r\n',
  'GET /api/beta/topics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'POST /api/beta/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /api/beta/topics HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n',
  `GET /api/beta/topics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`,
  'PUT /upload/x.txt HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
  'GET /selif/%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /api/beta/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n',
];

function sendRaw(base: URL, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(Number(base.port), base.hostname, () => sock.end(Buffer.from(bytes, 'latin1')));
    let data = '';
    sock.on('data', (d) => (data += d.toString('latin1')));
    sock.on('close', () => resolve(data));
    sock.on('error', () => resolve(data));
    sock.setTimeout(10_000, () => sock.destroy());
  });
}

// ---------------------------------------------------------------------------------------------

let s: TestServer;
const world: World = { token: '', topicIds: [], usernames: [], files: [] };

/** FUZZ_URL sends the run to a server started elsewhere (its data is then whatever it holds). */
const EXTERNAL = process.env.FUZZ_URL;

beforeAll(async () => {
  if (EXTERNAL) {
    Object.assign(world, {
      token: 'x.y.z',
      topicIds: ['1', '2', '3', '4'],
      usernames: ['alice', 'bob', 'ALICE'],
      files: ['plain.txt', 'locked.txt'],
    });
    return;
  }
  s = await startTestServer({ FILES_MAX_SIZE: String(64 * 1024), BODY_LIMIT: String(256 * 1024) });
  const f = new Factory(s);
  const alice = await f.user('alice');
  const bob = await f.user('bob');
  world.token = await alice.tokenNow();
  world.usernames = ['alice', 'bob', 'ALICE'];
  for (let i = 0; i < 4; i++) {
    const t = await f.topic(i % 2 ? alice : bob, {
      tags: ['ask.survey', 'hello world'],
      markdown: 'Some *text* <script>alert(1)</script>',
    });
    world.topicIds.push(t.id36);
    const c = await f.comment(bob, t);
    await f.comment(alice, t, { parent: c });
  }
  for (const [name, key] of [
    ['plain.txt', ''],
    ['locked.txt', 'k'],
  ] as const) {
    const res = await fetch(`${s.url}/upload/${name}`, {
      method: 'PUT',
      headers: { accept: 'application/json', ...(key ? { 'files-access-key': key } : {}) },
      body: 'hello world',
    });
    world.files.push(((await res.json()) as { filename: string }).filename);
  }
});
afterAll(async () => s?.close());

it(`answers ${REQUESTS} random and malformed requests (seed ${SEED}) without a 5xx, in each front door's \
format, quickly, and stays ready`, async () => {
  const url = EXTERNAL ?? s.url;
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const r = rng(SEED);
  const requests = Array.from({ length: REQUESTS }, () => nextRequest(r, world));
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let clientErrors = 0;
  let next = 0;
  const worker = async () => {
    while (next < requests.length && failures.length < 20) {
      const i = next++;
      const req = requests[i]!;
      if (process.env.FUZZ_TRACE)
        fs.appendFileSync(
          process.env.FUZZ_TRACE,
          `#${i} ${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 300)} ` +
            `${req.body?.subarray(0, 4096).toString('latin1') ?? ''}\n`,
        );
      const a = await send(base, req, agent);
      if ('clientError' in a) {
        clientErrors++;
        if (!a.clientError.startsWith('not sent'))
          failures.push(`#${i} ${req.method} ${req.path.slice(0, 200)}: ${a.clientError}`);
        continue;
      }
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      const problems = check(req, a);
      if (problems.length > 0) {
        failures.push(
          `#${i} ${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 300)} ` +
            `→ ${a.status} ${problems.join(', ')}: ${a.body.toString('utf8').slice(0, 200)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();

  for (const g of GARBAGE) {
    const answer = await sendRaw(base, g);
    const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
    if (m && Number(m[1]) >= 500) failures.push(`raw ${JSON.stringify(g.slice(0, 60))} → ${m[1]}`);
  }

  expect(failures).toEqual([]);
  // Most requests reached the server and were answered (node:http refuses a few header values).
  expect(clientErrors).toBeLessThan(REQUESTS * 0.05);
  expect([...statuses.keys()].some((st) => st >= 200 && st < 300)).toBe(true);
  expect([...statuses.keys()].filter((st) => st >= 400).length).toBeGreaterThan(5);

  const ready = await fetch(`${url}/readyz`);
  expect(ready.status).toBe(200);
  const listing = await fetch(`${url}/api/beta/topics`);
  expect(listing.status).toBe(200);
  if (!EXTERNAL) expect(((await listing.json()) as { topics: unknown[] }).topics.length).toBe(4);
});
