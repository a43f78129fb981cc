/**
 * Rate limits (issue 7), through real HTTP against a real database: registrations per client
 * address (GraphQL `register`), uploads per client address over every upload route (REST PUT,
 * POST multipart and paste, GraphQL `uploadFile`) answered 429 with Retry-After in each front
 * door's format before the body is read, 0 turning a limit off, and the process-wide cap on
 * concurrent uploads whose slots come back on every exit path (finished, refused, aborted).
 * TRUST_PROXY is on where a test needs several client addresses (X-Forwarded-For).
 */
import http from 'node:http';
import net from 'node:net';
import { Factory } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';
import { eventually, metadata, readResponse, request, Res, storeCounts } from '../files/helpers';

const JSON_ACCEPT = { accept: 'application/json' };
const PREFLIGHT = { 'apollo-require-preflight': 'true' };
const FORM = { 'x-requested-with': 'XMLHttpRequest' };
const TOO_MANY_UPLOADS = 'Too many uploads, try again later';
const BUSY = 'Too many uploads in progress, try again shortly';

const REGISTER =
  'mutation Register($username: String!, $password: String!) { register(username: $username, password: ' +
  '$password) { token user { username } } }';
const UPLOAD =
  'mutation Upload($file: Upload!, $filename: String) { uploadFile(file: $file, filename: $filename) { ' +
  'filename size } }';

interface GqlBody {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: Record<string, any> }[];
}

const from = (address: string) => ({ 'x-forwarded-for': address });

/** A GraphQL multipart upload request body (operations, map, then the file). */
function gqlUploadBody(filename: string, content: string | Buffer, boundary = 'rlBoundary7') {
  const part = (name: string, value: string | Buffer, file?: string) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; ` +
          `name="${name}"${file ? `; filename="${file}"` : ''}\r\n` +
          `${file ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`,
      ),
      Buffer.isBuffer(value) ? value : Buffer.from(value),
      Buffer.from('\r\n'),
    ]);
  const head = Buffer.concat([
    part('operations', JSON.stringify({ query: UPLOAD, variables: { file: null, filename } })),
    part('map', JSON.stringify({ '0': ['variables.file'] })),
  ]);
  const file = part('0', content, filename);
  const tail = Buffer.from(`--${boundary}--\r\n`);
  return { body: Buffer.concat([head, file, tail]), head, type: `multipart/form-data; boundary=${boundary}` };
}

function multipartForm(filename: string, content: string, boundary = 'formBoundary7') {
  return {
    body:
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n` +
      `${content}\r\n--${boundary}--\r\n`,
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

const put = (s: TestServer, name: string, headers: Record<string, string> = {}, body = `bytes of ${name}`) =>
  request(s.url, 'PUT', `/upload/${name}`, { headers: { ...JSON_ACCEPT, ...headers }, body });

const postForm = (s: TestServer, name: string, headers: Record<string, string> = {}) => {
  const m = multipartForm(name, `form bytes of ${name}`);
  return request(s.url, 'POST', '/upload', { headers: { 'content-type': m.type, ...FORM, ...headers }, body: m.body });
};

const paste = (s: TestServer, name: string, headers: Record<string, string> = {}) =>
  request(s.url, 'POST', '/upload', {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...FORM, ...headers },
    body: `content=${encodeURIComponent(`pasted ${name}`)}&filename=${name}&extension=txt`,
  });

const gqlUpload = (s: TestServer, name: string, headers: Record<string, string> = {}) => {
  const m = gqlUploadBody(name, `graphql bytes of ${name}`);
  return request(s.url, 'POST', '/graphql', {
    headers: { 'content-type': m.type, ...PREFLIGHT, ...headers },
    body: m.body,
  });
};

async function register(s: TestServer, username: string, address: string, password = 'long enough password') {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...from(address) },
    body: JSON.stringify({ query: REGISTER, variables: { username, password } }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as GqlBody };
}

/** Retry-After must be whole seconds ≥ 1 and at most the window. */
function expectRetryAfter(r: Res, maxSeconds: number): number {
  const v = r.headers['retry-after'];
  expect(v).toMatch(/^[1-9][0-9]*$/);
  const n = Number(v);
  expect(n).toBeLessThanOrEqual(maxSeconds);
  return n;
}

/** The GraphQL 429: HTTP status, Retry-After, TOO_MANY_REQUESTS with the reason and retryAfter. */
function expectGraphQL429(r: Res, reason: string, maxSeconds: number): void {
  expect(r.status).toBe(429);
  const seconds = expectRetryAfter(r, maxSeconds);
  const body = r.json<GqlBody>();
  expect(body.data ?? null).toBeNull();
  expect(body.errors).toHaveLength(1);
  expect(body.errors![0]!.extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason, retryAfter: seconds });
}

async function userCount(s: TestServer, username: string): Promise<number> {
  return s.agora.db.conn.collection('users').countDocuments({ usernameLower: username.toLowerCase() });
}

describe('registration limit (REGISTRATION_RATE_LIMIT per client address)', () => {
  let s: TestServer;
  let f: Factory;
  beforeAll(async () => {
    s = await startTestServer({ REGISTRATION_RATE_LIMIT: '3', TRUST_PROXY: 'true' });
    f = new Factory(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  it(`refuses the registration after the limit with 429, Retry-After until the oldest leaves the window, and \
creates nothing`, async () => {
    f.at('2026-03-01T12:00:00.000Z');
    expect((await register(s, 'reg_one', '10.1.0.1')).body.data?.register.user.username).toBe('reg_one');
    f.at('2026-03-01T12:10:00.000Z');
    expect((await register(s, 'reg_two', '10.1.0.1')).status).toBe(200);
    f.at('2026-03-01T12:20:00.000Z');
    // A taken username counts too (the limit also bounds probing for names).
    const taken = await register(s, 'REG_ONE', '10.1.0.1');
    expect(taken.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    f.at('2026-03-01T12:30:00.000Z');
    const refused = await register(s, 'reg_four', '10.1.0.1');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe(String(30 * 60));
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        message: 'Too many registrations, try again later',
        extensions: expect.objectContaining({
          code: 'TOO_MANY_REQUESTS',
          reason: 'REGISTRATION_RATE_LIMITED',
          retryAfter: 1800,
        }),
      }),
    ]);
    expect(await userCount(s, 'reg_four')).toBe(0);

    // Another address is not affected.
    expect((await register(s, 'reg_five', '10.1.0.2')).status).toBe(200);

    // Refused requests are not counted: the address may register again once the first attempt is an hour old.
    f.at('2026-03-01T12:59:59.500Z');
    expect((await register(s, 'reg_six', '10.1.0.1')).retryAfter).toBe('1');
    f.at('2026-03-01T13:00:00.001Z');
    expect((await register(s, 'reg_six', '10.1.0.1')).status).toBe(200);
    expect((await register(s, 'reg_seven', '10.1.0.1')).status).toBe(429);
  });

  it('does not count registrations that fail validation', async () => {
    f.at('2026-03-02T12:00:00.000Z');
    for (let i = 0; i < 5; i++)
      expect((await register(s, `bad${i}`, '10.1.1.1', 'short')).body.errors?.[0]?.extensions?.code).toBe(
        'BAD_USER_INPUT',
      );
    expect((await register(s, 'valid_after_bad', '10.1.1.1')).status).toBe(200);
  });

  it('keeps the counters in the database, shared with the other limits', async () => {
    const keys = await s.agora.db.conn.collection('rate_limit_attempts').distinct('key');
    expect(keys).toEqual(expect.arrayContaining(['register:addr:10.1.0.1', 'register:addr:10.1.1.1']));
  });
});

describe('upload limit (FILES_UPLOAD_RATE_LIMIT per client address, every upload route)', () => {
  let s: TestServer;
  beforeAll(async () => {
    // A window long enough that six uploads always fall inside it, even on a loaded machine.
    s = await startTestServer({ FILES_UPLOAD_RATE_LIMIT: '5', FILES_UPLOAD_RATE_WINDOW: '120', TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await s?.close();
  });

  /** Runs `ok` uploads that must succeed, then checks that the next one is refused and stores nothing. */
  async function exhaust(address: string, ok: (i: number) => Promise<Res>, expectOk: (r: Res) => void): Promise<void> {
    for (let i = 0; i < 5; i++) expectOk(await ok(i));
    expect(
      await s.agora.db.conn.collection('rate_limit_attempts').countDocuments({ key: `upload:addr:${address}` }),
    ).toBe(5);
  }

  async function expectNothingStored(before: number, run: () => Promise<void>): Promise<void> {
    await run();
    expect((await metadata(s)).length).toBe(before);
    await eventually(async () => expect((await storeCounts(s)).temporary).toBe(0));
  }

  it(`REST PUT: the 6th upload within the window → 429 in the files format (JSON or text) with Retry-After; \
nothing stored`, async () => {
    const addr = from('10.2.0.1');
    await exhaust(
      '10.2.0.1',
      (i) => put(s, `put${i}.txt`, addr),
      (r) => expect(r.status).toBe(200),
    );
    await expectNothingStored((await metadata(s)).length, async () => {
      const json = await put(s, 'put5.txt', addr);
      expect(json.status).toBe(429);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json.text).toBe(JSON.stringify({ error: TOO_MANY_UPLOADS }));
      expectRetryAfter(json, 120);
      const text = await request(s.url, 'PUT', '/upload/put6.txt', { headers: addr, body: 'text please' });
      expect(text.status).toBe(429);
      expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(text.text).toBe(`${TOO_MANY_UPLOADS}\n`);
      expectRetryAfter(text, 120);
    });
    // Refused requests were not counted.
    expect(
      await s.agora.db.conn.collection('rate_limit_attempts').countDocuments({ key: 'upload:addr:10.2.0.1' }),
    ).toBe(5);
  });

  it(`REST PUT: refused before the body, so a client still sending gets its 429 and the connection \
closes`, async () => {
    // 10.2.0.1 is limited (previous test). Headers announce 50 MB; only a first chunk is sent.
    const response = await new Promise<string>((resolve) => {
      const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1', () => {
        sock.write(
          'PUT /upload/big.bin HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n' +
            'X-Forwarded-For: 10.2.0.1\r\nContent-Length: 52428800\r\n\r\n',
        );
        sock.write(Buffer.alloc(64 * 1024, 0x61));
      });
      let data = '';
      sock.on('data', (d) => (data += d.toString('latin1')));
      sock.on('close', () => resolve(data));
      sock.on('error', () => resolve(data));
      sock.setTimeout(10_000, () => sock.destroy());
    });
    expect(response).toMatch(/^HTTP\/1\.1 429 /);
    expect(response).toMatch(/\r\nconnection: close\r\n/i);
    expect(response).toMatch(/\r\nretry-after: [1-9][0-9]*\r\n/i);
    expect(response).toContain(JSON.stringify({ error: TOO_MANY_UPLOADS }));
  });

  it('REST PUT with Expect: 100-continue: the 429 comes instead of 100 Continue', async () => {
    const r = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = http.request(
        {
          method: 'PUT',
          host: '127.0.0.1',
          port: Number(new URL(s.url).port),
          path: '/upload/expect.txt',
          agent: false,
          headers: { ...from('10.2.0.1'), expect: '100-continue', 'content-length': 5 },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, continued }));
        },
      );
      req.on('continue', () => {
        continued = true;
        req.end('hello');
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(r).toEqual({ status: 429, continued: false });
  });

  it(`REST POST multipart: the 6th upload → 429 with Retry-After (text, and JSON when preferred); nothing \
stored`, async () => {
    const addr = from('10.2.0.2');
    await exhaust(
      '10.2.0.2',
      (i) => postForm(s, `form${i}.txt`, addr),
      (r) => expect(r.status).toBe(303),
    );
    await expectNothingStored((await metadata(s)).length, async () => {
      const text = await postForm(s, 'form5.txt', addr);
      expect(text.status).toBe(429);
      expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(text.text).toBe(`${TOO_MANY_UPLOADS}\n`);
      expectRetryAfter(text, 120);
      const json = await postForm(s, 'form6.txt', { ...addr, ...JSON_ACCEPT });
      expect(json.status).toBe(429);
      expect(json.json()).toEqual({ error: TOO_MANY_UPLOADS });
      expectRetryAfter(json, 120);
      // A paste is an upload too.
      const pasted = await paste(s, 'paste7', { ...addr, ...JSON_ACCEPT });
      expect(pasted.status).toBe(429);
      expect(pasted.json()).toEqual({ error: TOO_MANY_UPLOADS });
    });
  });

  it(`GraphQL uploadFile: the 6th upload → HTTP 429, TOO_MANY_REQUESTS with retryAfter and Retry-After; \
nothing stored`, async () => {
    const addr = from('10.2.0.3');
    await exhaust(
      '10.2.0.3',
      (i) => gqlUpload(s, `gql${i}.txt`, addr),
      (r) => {
        expect(r.status).toBe(200);
        expect(r.json<GqlBody>().data?.uploadFile.filename).toMatch(/^gql[0-9]\.txt$/);
      },
    );
    await expectNothingStored((await metadata(s)).length, async () => {
      const r = await gqlUpload(s, 'gql5.txt', addr);
      expectGraphQL429(r, 'UPLOAD_RATE_LIMITED', 120);
      expect(r.json<GqlBody>().errors![0]!.message).toBe(TOO_MANY_UPLOADS);
    });
  });

  it('one counter per address across every route and front door', async () => {
    const addr = from('10.2.0.4');
    expect((await put(s, 'mix0.txt', addr)).status).toBe(200);
    expect((await postForm(s, 'mix1.txt', addr)).status).toBe(303);
    expect((await paste(s, 'mix2', addr)).status).toBe(303);
    expect((await gqlUpload(s, 'mix3.txt', addr)).status).toBe(200);
    expect((await put(s, 'mix4.txt', addr)).status).toBe(200);
    expect((await gqlUpload(s, 'mix5.txt', addr)).status).toBe(429);
    expect((await put(s, 'mix6.txt', addr)).status).toBe(429);
    // Other addresses still upload.
    expect((await put(s, 'other.txt', from('10.2.0.5'))).status).toBe(200);
  });
});

describe('upload limit: window, client address, 0', () => {
  it('a client that waits Retry-After may upload again (refusals are not counted)', async () => {
    const s = await startTestServer({ FILES_UPLOAD_RATE_LIMIT: '1', FILES_UPLOAD_RATE_WINDOW: '2' });
    try {
      expect((await put(s, 'first.txt')).status).toBe(200);
      const refused = await put(s, 'second.txt');
      expect(refused.status).toBe(429);
      const wait = expectRetryAfter(refused, 2);
      await new Promise((r) => setTimeout(r, wait * 1000 + 50));
      expect((await put(s, 'third.txt')).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it(`without TRUST_PROXY, X-Forwarded-For does not make another client: every request counts against the \
connection address`, async () => {
    const s = await startTestServer({ FILES_UPLOAD_RATE_LIMIT: '2', FILES_UPLOAD_RATE_WINDOW: '120' });
    try {
      expect((await put(s, 'a.txt', from('10.3.0.1'))).status).toBe(200);
      expect((await put(s, 'b.txt', from('10.3.0.2'))).status).toBe(200);
      expect((await put(s, 'c.txt', from('10.3.0.3'))).status).toBe(429);
      const keys = await s.agora.db.conn.collection('rate_limit_attempts').distinct('key');
      expect(keys).toEqual(['upload:addr:127.0.0.1']);
    } finally {
      await s.close();
    }
  });
});

describe('TRUST_PROXY trusts the proxy in front, not the client', () => {
  it(`TRUST_PROXY=true counts the address the proxy added (the last X-Forwarded-For entry), whatever the \
client put before it`, async () => {
    const s = await startTestServer({
      TRUST_PROXY: 'true',
      FILES_UPLOAD_RATE_LIMIT: '2',
      FILES_UPLOAD_RATE_WINDOW: '120',
    });
    try {
      // A proxy that appends: the client forged the first entries, the proxy saw 10.4.0.9.
      expect((await put(s, 'a.txt', from('1.1.1.1, 10.4.0.9'))).status).toBe(200);
      expect((await put(s, 'b.txt', from('2.2.2.2, 10.4.0.9'))).status).toBe(200);
      expect((await put(s, 'c.txt', from('3.3.3.3, 10.4.0.9'))).status).toBe(429);
      const keys = await s.agora.db.conn.collection('rate_limit_attempts').distinct('key');
      expect(keys).toEqual(['upload:addr:10.4.0.9']);
    } finally {
      await s.close();
    }
  });

  it(`a list of proxy addresses trusts exactly those: from 127.0.0.1 the header is honoured, the forged \
entries are skipped`, async () => {
    const s = await startTestServer({
      TRUST_PROXY: '127.0.0.1, ::1',
      FILES_UPLOAD_RATE_LIMIT: '1',
      FILES_UPLOAD_RATE_WINDOW: '120',
    });
    try {
      expect((await put(s, 'a.txt', from('9.9.9.9, 10.5.0.1'))).status).toBe(200);
      expect((await put(s, 'b.txt', from('10.5.0.2'))).status).toBe(200);
      const keys = (await s.agora.db.conn.collection('rate_limit_attempts').distinct('key')).sort();
      expect(keys).toEqual(['upload:addr:10.5.0.1', 'upload:addr:10.5.0.2']);
    } finally {
      await s.close();
    }
  });
});

describe('limit 0 and the concurrent-upload cap (FILES_MAX_CONCURRENT_UPLOADS)', () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    s = await startTestServer({
      FILES_UPLOAD_RATE_LIMIT: '0',
      REGISTRATION_RATE_LIMIT: '0',
      FILES_MAX_CONCURRENT_UPLOADS: '2',
      // The global cap alone: both slow uploads come from 127.0.0.1 (the per-address share has its own suite).
      FILES_MAX_UPLOADS_PER_ADDRESS: '0',
    });
    port = Number(new URL(s.url).port);
  });
  afterAll(async () => {
    await s?.close();
  });

  const inProgress = () => s.agora.services.files.uploads.inProgress;

  /** An upload whose body is held open after `head`; finish() sends the rest, abort() drops the connection. */
  function slowUpload(method: string, path: string, headers: Record<string, string>, head: Buffer, rest: Buffer) {
    const req = http.request({
      method,
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: { ...headers, 'content-length': head.length + rest.length },
    });
    const response = new Promise<Res>((resolve, reject) => {
      req.on('response', (res) => readResponse(res).then(resolve, reject));
      req.on('error', reject);
    });
    response.catch(() => {});
    req.write(head);
    return { response, finish: () => req.end(rest), abort: () => req.destroy() };
  }

  it('limit 0: one address uploads and registers as often as it likes', async () => {
    for (let i = 0; i < 8; i++) expect((await put(s, `free${i}.txt`)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await gqlUpload(s, `freeg${i}.txt`)).status).toBe(200);
    for (let i = 0; i < 12; i++) expect((await register(s, `free_user${i}`, '127.0.0.1')).status).toBe(200);
    expect(await s.agora.db.conn.collection('rate_limit_attempts').countDocuments({ key: /^(upload|register):/ })).toBe(
      0,
    );
    expect(inProgress()).toBe(0);
  });

  it('over the cap → 429 with Retry-After: 1 in each front door; finished uploads free their slot', async () => {
    const a = slowUpload(
      'PUT',
      '/upload/slow-a.txt',
      JSON_ACCEPT,
      Buffer.from('first half '),
      Buffer.from('second half'),
    );
    const b = slowUpload(
      'PUT',
      '/upload/slow-b.txt',
      JSON_ACCEPT,
      Buffer.from('b'.repeat(10)),
      Buffer.from('b'.repeat(990)),
    );
    await eventually(() => expect(inProgress()).toBe(2));
    const before = (await metadata(s)).length;

    const rest = await put(s, 'refused.txt');
    expect(rest.status).toBe(429);
    expect(rest.headers['retry-after']).toBe('1');
    expect(rest.json()).toEqual({ error: BUSY });
    const text = await postForm(s, 'refused-form.txt');
    expect(text.status).toBe(429);
    expect(text.headers['retry-after']).toBe('1');
    expect(text.text).toBe(`${BUSY}\n`);
    const gql = await gqlUpload(s, 'refused-gql.txt');
    expectGraphQL429(gql, 'UPLOADS_BUSY', 1);
    expect(gql.headers['retry-after']).toBe('1');
    expect((await metadata(s)).length).toBe(before);
    expect(inProgress()).toBe(2);

    a.finish();
    expect((await a.response).status).toBe(200);
    await eventually(() => expect(inProgress()).toBe(1));
    expect((await put(s, 'after-finish.txt')).status).toBe(200);
    b.finish();
    expect((await b.response).json()).toMatchObject({ filename: 'slow-b.txt', size: '1000' });
    await eventually(() => expect(inProgress()).toBe(0));
  });

  it('aborted uploads (REST PUT, REST multipart, GraphQL) free their slots and leave nothing behind', async () => {
    const before = (await metadata(s)).length;
    const form = multipartForm('slow-form.txt', 'x'.repeat(2000));
    const formBody = Buffer.from(form.body);
    const gqlBody = gqlUploadBody('slow-gql.txt', Buffer.alloc(2000, 0x67));
    const splitAt = gqlBody.head.length + 200;

    const put1 = slowUpload('PUT', '/upload/abort-put.txt', {}, Buffer.from('partial'), Buffer.alloc(5000, 0x70));
    const form1 = slowUpload(
      'POST',
      '/upload',
      { 'content-type': form.type, ...FORM },
      formBody.subarray(0, 300),
      formBody.subarray(300),
    );
    await eventually(() => expect(inProgress()).toBe(2));
    expect((await put(s, 'full.txt')).status).toBe(429);
    put1.abort();
    form1.abort();
    await eventually(() => expect(inProgress()).toBe(0));

    const gql1 = slowUpload(
      'POST',
      '/graphql',
      { 'content-type': gqlBody.type, ...PREFLIGHT },
      gqlBody.body.subarray(0, splitAt),
      gqlBody.body.subarray(splitAt),
    );
    const put2 = slowUpload('PUT', '/upload/abort-put2.txt', {}, Buffer.from('partial'), Buffer.alloc(5000, 0x70));
    await eventually(() => expect(inProgress()).toBe(2));
    expect((await gqlUpload(s, 'full-gql.txt')).status).toBe(429);
    gql1.abort();
    put2.abort();
    await eventually(() => expect(inProgress()).toBe(0));

    // Both slots are free again: two uploads at once are admitted.
    const [x, y] = await Promise.all([put(s, 'again-x.txt'), gqlUpload(s, 'again-y.txt')]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect((await metadata(s)).length).toBe(before + 2);
    await eventually(async () => expect((await storeCounts(s)).temporary).toBe(0));
  });
});
