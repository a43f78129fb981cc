/**
 * Uploads share fairly (issue 43): one client address (an IPv6 /64) holds at most its share of the
 * upload slots (FILES_MAX_UPLOADS_PER_ADDRESS, a quarter of FILES_MAX_CONCURRENT_UPLOADS by
 * default), the slots are counted atomically under hundreds of concurrent uploads, and a body that
 * stalls (FILES_UPLOAD_STALL_TIMEOUT) or crawls (FILES_UPLOAD_MIN_RATE over each
 * FILES_UPLOAD_MIN_RATE_PERIOD) is ended with a readable 408, so trickling sockets cannot hold
 * slots for the request timeout. A legacy batch client is never refused on the defaults.
 * Clients are raw sockets on loopback; TRUST_PROXY gives them addresses (X-Forwarded-For).
 */
import net from 'node:net';
import { startTestServer, TestServer } from '../../helpers/server';
import { eventually, metadata, request, storeCounts } from './helpers';

const BY_ADDRESS = 'Too many uploads in progress from this address, try again shortly';

interface Answer {
  status: number;
  head: string;
  body: string;
}

interface Trickle {
  /** The answer, or undefined when the connection closed without one. */
  answer: Promise<Answer | undefined>;
  /** Closes the connection. */
  close(): void;
}

/**
 * A chunked PUT from `address` whose body comes one byte every `everyMs` (never: only `first`),
 * until the server answers or close() is called.
 */
function trickle(port: number, address: string, name: string, everyMs: number | null, first = 'x'): Trickle {
  const sock = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let timer: NodeJS.Timeout | undefined;
  const answer = new Promise<Answer | undefined>((resolve) => {
    let data = '';
    const done = (a: Answer | undefined) => {
      clearInterval(timer);
      resolve(a);
    };
    sock.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = data.slice(0, end).toLowerCase();
      const length = Number(/\r\ncontent-length: (\d+)/.exec(head)?.[1] ?? 0);
      if (data.length - end - 4 < length) return;
      done({ status: Number(head.slice(9, 12)), head, body: data.slice(end + 4, end + 4 + length) });
      sock.end();
    });
    sock.on('error', () => {});
    sock.on('close', () => done(undefined));
  });
  const frame = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
  sock.on('connect', () => {
    sock.write(
      `PUT /upload/${name} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${address}\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${frame(first)}`,
    );
    if (everyMs !== null) timer = setInterval(() => sock.writable && sock.write(frame('y')), everyMs);
  });
  return {
    answer,
    close: () => {
      clearInterval(timer);
      sock.destroy();
    },
  };
}

/** The answers that came within `ms` (undefined for those still open). */
async function answersWithin(trickles: Trickle[], ms: number): Promise<(Answer | undefined)[]> {
  const pending = Symbol('pending');
  const wait = new Promise<typeof pending>((r) => setTimeout(() => r(pending), ms));
  return Promise.all(
    trickles.map(async (t) => ((await Promise.race([t.answer, wait])) === pending ? undefined : t.answer)),
  );
}

describe('the defaults', () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    // The upload rate limit back at its default (off); addresses from X-Forwarded-For.
    s = await startTestServer({ FILES_UPLOAD_RATE_LIMIT: '', TRUST_PROXY: 'true' });
    port = Number(new URL(s.url).port);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a quarter of the 100 slots per address, 30 s of silence, 1 KiB/s over each 20 s', () => {
    expect(s.config.files).toMatchObject({
      maxConcurrentUploads: 100,
      maxUploadsPerAddress: 25,
      uploadStallSeconds: 30,
      uploadMinRate: 1024,
      uploadMinRateSeconds: 20,
    });
  });

  it(`100 sockets trickling from one address hold 25 slots, the others get 429 (after at most 5 s of \
draining), another client uploads meanwhile, and the 25 are ended with 408 after the first 20 s`, async () => {
    const uploads = s.agora.services.files.uploads;
    const trickles = Array.from({ length: 100 }, (_, i) => trickle(port, '10.43.0.1', `slow${i}.txt`, 2000));
    try {
      const early = await answersWithin(trickles, 8000);
      const refused = early.filter((a) => a !== undefined);
      expect(refused.length).toBe(75);
      for (const a of refused) {
        expect(a!.status).toBe(429);
        expect(a!.head).toContain('\r\nretry-after: 1');
        expect(a!.body).toBe(`${BY_ADDRESS}\n`);
      }
      expect(uploads.inProgress).toBe(25);
      const other = await request(s.url, 'PUT', '/upload/other.txt', {
        headers: { 'x-forwarded-for': '10.43.0.2' },
        body: 'another client',
      });
      expect(other.status).toBe(200);
      const held = trickles.filter((_, i) => early[i] === undefined);
      const late = await answersWithin(held, 25_000);
      expect(late.map((a) => a && `${a.status} ${a.body}`)).toEqual(Array(25).fill('408 Request timeout\n'));
      for (const a of late) expect(a!.head).toContain('\r\nconnection: close');
      await eventually(() => expect(uploads.inProgress).toBe(0));
      await eventually(async () => expect((await storeCounts(s)).temporary).toBe(0));
    } finally {
      for (const t of trickles) t.close();
    }
  }, 60_000);

  it('a legacy batch client (100 uploads of 256 KiB from one address, a pool of 20) is never refused', async () => {
    const body = Buffer.alloc(256 * 1024, 0x6c);
    let next = 0;
    const statuses: number[] = [];
    const worker = async () => {
      while (next < 100) {
        const i = next++;
        statuses.push((await request(s.url, 'PUT', `/upload/batch${i}.bin`, { body })).status);
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    expect(statuses).toEqual(Array(100).fill(200));
  }, 60_000);
});

describe('the share under concurrency', () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: 'true', FILES_UPLOAD_STALL_TIMEOUT: '0', FILES_UPLOAD_MIN_RATE: '0' });
    port = Number(new URL(s.url).port);
  });
  afterAll(async () => {
    await s?.close();
  });

  it(`300 concurrent uploads from 5 addresses (one of them 60 addresses of an IPv6 /64): each holds at most \
25 slots, 100 in all, every other one is refused`, async () => {
    const gate = s.agora.services.files.uploads;
    const groups = ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4'];
    const addresses = [
      ...groups.flatMap((a) => Array<string>(60).fill(a)),
      ...Array.from({ length: 60 }, (_, i) => `2001:db8:43:7::${(i + 1).toString(16)}`),
    ];
    const trickles = addresses.map((a, i) => trickle(port, a, `c${i}.txt`, null));
    try {
      const answers = await answersWithin(trickles, 9000);
      const refused = answers.filter((a) => a !== undefined);
      expect(refused.length).toBe(200);
      for (const a of refused) expect(a!.status).toBe(429);
      expect(gate.inProgress).toBe(100);
      const held = new Map<string, number>();
      addresses.forEach((a, i) => {
        const group = a.startsWith('2001:') ? 'ipv6' : a;
        if (answers[i] === undefined) held.set(group, (held.get(group) ?? 0) + 1);
      });
      for (const n of held.values()) expect(n).toBeLessThanOrEqual(25);
      expect([...held.values()].reduce((x, y) => x + y, 0)).toBe(100);
      // The refusals name the cause: the address's share, or the process's cap once 100 were taken.
      const reasons = new Set(refused.map((a) => a!.body));
      for (const r of reasons)
        expect([`${BY_ADDRESS}\n`, 'Too many uploads in progress, try again shortly\n']).toContain(r);
    } finally {
      for (const t of trickles) t.close();
    }
    await eventually(() => expect(gate.inProgress).toBe(0));
  }, 60_000);
});

/** A GraphQL multipart upload (graphql-multipart-request-spec) of a small file from `address`. */
function graphqlUpload(s: TestServer, name: string, address: string) {
  const boundary = 'shareBoundary';
  const part = (field: string, value: string, file?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"${file ? `; filename="${file}"` : ''}\r\n\r\n` +
    `${value}\r\n`;
  const query =
    'mutation($file: Upload!, $filename: String) { uploadFile(file: $file, filename: $filename) { filename } }';
  const body =
    part('operations', JSON.stringify({ query, variables: { file: null, filename: name } })) +
    part('map', JSON.stringify({ '0': ['variables.file'] })) +
    part('0', `bytes of ${name}`, name) +
    `--${boundary}--\r\n`;
  return request(s.url, 'POST', '/graphql', {
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'apollo-require-preflight': 'true',
      'x-forwarded-for': address,
    },
    body,
  });
}

describe('the share through the GraphQL door', () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: 'true', FILES_MAX_UPLOADS_PER_ADDRESS: '3' });
    port = Number(new URL(s.url).port);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('an address holding its share gets 429 ADDRESS_UPLOADS_BUSY on GraphQL too; another address uploads', async () => {
    const trickles = Array.from({ length: 3 }, (_, i) => trickle(port, '10.3.0.1', `g${i}.txt`, null));
    try {
      await eventually(() => expect(s.agora.services.files.uploads.inProgress).toBe(3));
      const refused = await graphqlUpload(s, 'refused.txt', '10.3.0.1');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      const errors = refused.json<{ errors: { extensions: Record<string, unknown> }[] }>().errors;
      expect(errors[0]!.extensions).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'ADDRESS_UPLOADS_BUSY' });
      const other = await graphqlUpload(s, 'other.txt', '10.3.0.2');
      expect(other.status).toBe(200);
      expect(other.json<{ data: unknown }>().data).toEqual({ uploadFile: { filename: 'other.txt' } });
    } finally {
      for (const t of trickles) t.close();
    }
  });
});

describe('a body that stalls or crawls', () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    s = await startTestServer({
      TRUST_PROXY: 'true',
      FILES_UPLOAD_STALL_TIMEOUT: '2',
      FILES_UPLOAD_MIN_RATE: '1000',
      FILES_UPLOAD_MIN_RATE_PERIOD: '3',
    });
    port = Number(new URL(s.url).port);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a PUT body that stops is answered 408 Request timeout, the slot freed and nothing kept', async () => {
    const before = (await metadata(s)).length;
    const t = trickle(port, '10.2.0.1', 'stall.txt', null, 'the first bytes');
    const started = Date.now();
    const [a] = await answersWithin([t], 8000);
    t.close();
    expect(a && `${a.status} ${a.body}`).toBe('408 Request timeout\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(a!.head).toContain('\r\nconnection: close');
    await eventually(() => expect(s.agora.services.files.uploads.inProgress).toBe(0));
    await eventually(async () => expect((await storeCounts(s)).temporary).toBe(0));
    expect((await metadata(s)).length).toBe(before);
  }, 20_000);

  it('a body that keeps coming but below the minimum rate is answered 408 after the period', async () => {
    // A byte every 0.5 s: never 2 s of silence, but 2 bytes/s against 1000.
    const t = trickle(port, '10.2.0.2', 'crawl.txt', 500);
    const [a] = await answersWithin([t], 8000);
    t.close();
    expect(a && `${a.status} ${a.body}`).toBe('408 Request timeout\n');
  }, 20_000);

  it('a multipart POST that stalls within its fields, before the file, is answered 408 (JSON)', async () => {
    const sock = net.connect(port, '127.0.0.1');
    const head =
      'POST /upload HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nX-Requested-With: t\r\n' +
      'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n' +
      '--b\r\nContent-Disposition: form-data; name="expires"\r\n\r\n6';
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    sock.on('error', () => {});
    sock.write(head);
    await eventually(() => expect(data).toContain('{"error":"Request timeout"}'), 8000);
    expect(data).toMatch(/^HTTP\/1\.1 408 /);
    sock.destroy();
  }, 20_000);

  it(`a GraphQL uploadFile whose file part stops is answered 408 REQUEST_TIMEOUT, the slot freed, nothing kept, \
and the answer is read while the client keeps the connection open`, async () => {
    const before = (await metadata(s)).length;
    const boundary = 'paceBoundary';
    const part = (field: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"${file ? `; filename="${file}"` : ''}\r\n\r\n` +
      value;
    const query = 'mutation($file: Upload!) { uploadFile(file: $file) { filename } }';
    // The file part begins and then nothing more comes: the body is declared far longer.
    const body =
      `${part('operations', JSON.stringify({ query, variables: { file: null } }))}\r\n` +
      `${part('map', JSON.stringify({ '0': ['variables.file'] }))}\r\n` +
      part('0', 'the first bytes of the file', 'stalled.txt');
    const sock = net.connect(port, '127.0.0.1');
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    sock.on('error', () => {});
    const started = Date.now();
    sock.write(
      'POST /graphql HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.2.0.3\r\nApollo-Require-Preflight: true\r\n' +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n${body}`,
    );
    try {
      await eventually(() => expect(data).toContain('REQUEST_TIMEOUT'), 8000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(data).toMatch(/^HTTP\/1\.1 408 /);
      expect(data.toLowerCase()).toContain('\r\nconnection: close');
      await eventually(() => expect(s.agora.services.files.uploads.inProgress).toBe(0));
      await eventually(async () => expect((await storeCounts(s)).temporary).toBe(0));
      expect((await metadata(s)).length).toBe(before);
    } finally {
      sock.destroy();
    }
  }, 20_000);

  it('an upload at full speed is not affected (16 MiB through the same rules)', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024, 0x66);
    const res = await request(s.url, 'PUT', '/upload/fast.bin', { body });
    expect(res.status).toBe(200);
  }, 30_000);
});
