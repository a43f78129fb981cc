/**
 * GraphQL file sharing: uploadFile through the multipart request spec with a real client
 * (apollo-upload-client + @apollo/client in Node), file, deleteFile; the transport's order, shape,
 * limit, CSRF and drain rules with hand-built requests. Both storage backends.
 */
import http from 'node:http';
import net from 'node:net';
import { TestServer } from '../../helpers/server';
import {
  BACKENDS,
  client,
  eventually,
  metadata,
  request,
  startFor,
  storeCounts,
  TEST_CONTENT,
  TEST_SHA,
} from './helpers';

// apollo-upload-client is ESM-only; Jest loads it through swc (see jest.config.js).
const createUploadLink: (opts: Record<string, unknown>) => unknown =
  require('apollo-upload-client/createUploadLink.mjs').default;
const { ApolloClient, InMemoryCache, gql } = require('@apollo/client/core');

const BASE = 'https://files.example.org';
const PREFLIGHT = { 'apollo-require-preflight': 'true' };

const UPLOAD = `mutation Upload(
  $file: Upload!, $filename: String, $randomize: Boolean, $deleteKey: String, $expiresIn: Int, $accessKey: String
) {
  uploadFile(
    file: $file, filename: $filename, randomize: $randomize, deleteKey: $deleteKey, expiresIn: $expiresIn,
    accessKey: $accessKey
  ) {
    url directUrl filename deleteKey expiresAt size mimetype sha256sum
  }
}`;

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
}

/** A multipart body with the parts in the given order. */
function multipart(parts: Part[], boundary = 'gqlBoundary42') {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disp}\r\n` +
          `${p.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

function uploadParts(content: string | Buffer, variables: Record<string, unknown> = {}): Part[] {
  return [
    { name: 'operations', value: JSON.stringify({ query: UPLOAD, variables: { file: null, ...variables } }) },
    { name: 'map', value: JSON.stringify({ '0': ['variables.file'] }) },
    { name: '0', filename: 'notes.txt', value: content },
  ];
}

async function postMultipart(
  s: TestServer,
  parts: Part[],
  headers: Record<string, string> = PREFLIGHT,
  agent?: http.Agent,
) {
  const m = multipart(parts);
  return request(s.url, 'POST', '/graphql', { headers: { 'content-type': m.type, ...headers }, body: m.body, agent });
}

describe.each(BACKENDS)('GraphQL uploads on %s', (backend) => {
  let s: TestServer;
  let apollo: {
    mutate(o: unknown): Promise<{ data: Record<string, any> }>;
    query(o: unknown): Promise<{ data: Record<string, any> }>;
  };
  beforeAll(async () => {
    s = await startFor(backend, { PUBLIC_URL: BASE, FILES_MAX_SIZE: '2000', BODY_LIMIT: '4096' });
    apollo = new ApolloClient({
      link: createUploadLink({ uri: `${s.url}/graphql`, headers: PREFLIGHT }),
      cache: new InMemoryCache(),
      defaultOptions: { query: { fetchPolicy: 'no-cache' }, mutate: { fetchPolicy: 'no-cache' } },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('with apollo-upload-client', () => {
    it('uploads a File and answers every UploadedFile field', async () => {
      const file = new File([Buffer.from(TEST_CONTENT)], 'notes.txt', { type: 'text/plain' });
      const { data } = await apollo.mutate({ mutation: gql(UPLOAD), variables: { file } });
      expect(data.uploadFile).toEqual({
        __typename: 'UploadedFile',
        url: `${BASE}/notes.txt`,
        directUrl: `${BASE}/selif/notes.txt`,
        filename: 'notes.txt',
        deleteKey: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
        expiresAt: null,
        size: 23,
        mimetype: 'text/plain; charset=utf-8',
        sha256sum: TEST_SHA,
      });
      expect((await client(s).get('/selif/notes.txt')).text).toBe(TEST_CONTENT);
    });

    it('takes filename, randomize, deleteKey (overwrite), expiresIn and accessKey', async () => {
      const blob = (text: string) => new File([Buffer.from(text)], 'ignored.bin');
      const named = (
        await apollo.mutate({
          mutation: gql(UPLOAD),
          variables: { file: blob('abc'), filename: 'My Doc.TXT', deleteKey: 'gk', expiresIn: 60 },
        })
      ).data.uploadFile;
      expect(named.filename).toBe('mydoc.txt');
      expect(named.deleteKey).toBe('gk');
      expect(Math.abs(Date.parse(named.expiresAt) - (Date.now() + 60_000))).toBeLessThan(5000);
      const over = (
        await apollo.mutate({
          mutation: gql(UPLOAD),
          variables: { file: blob('xyz!'), filename: 'mydoc.txt', deleteKey: 'gk' },
        })
      ).data.uploadFile;
      expect([over.filename, over.size, over.expiresAt]).toEqual(['mydoc.txt', 4, null]);
      const random = (
        await apollo.mutate({
          mutation: gql(UPLOAD),
          variables: { file: blob('r'), filename: 'keep.png', randomize: true },
        })
      ).data.uploadFile;
      expect(random.filename).toMatch(/^[a-z0-9]{8}\.png$/);
      const secret = (
        await apollo.mutate({
          mutation: gql(UPLOAD),
          variables: { file: blob('s'), filename: 'gsec.txt', accessKey: 'pw' },
        })
      ).data.uploadFile;
      expect((await client(s).get(`/selif/${secret.filename}`)).status).toBe(401);
      expect((await client(s).get(`/selif/${secret.filename}?access_key=pw`)).text).toBe('s');
    });

    it('file: information, null when unknown, the access key for protected files', async () => {
      const info = (
        await apollo.query({
          query: gql`
            query {
              file(filename: "notes.txt") {
                url
                directUrl
                filename
                expiresAt
                size
                mimetype
                sha256sum
              }
            }
          `,
        })
      ).data.file;
      expect(info).toMatchObject({
        url: `${BASE}/notes.txt`,
        filename: 'notes.txt',
        size: 23,
        sha256sum: TEST_SHA,
        expiresAt: null,
      });
      expect(
        (
          await apollo.query({
            query: gql`
              query {
                file(filename: "nope.txt") {
                  filename
                }
              }
            `,
          })
        ).data.file,
      ).toBeNull();
      expect(
        (
          await apollo.query({
            query: gql`
              query {
                file(filename: "gsec.txt", accessKey: "pw") {
                  size
                }
              }
            `,
          })
        ).data.file,
      ).toEqual({ __typename: 'FileInfo', size: 1 });
      const denied = await request(s.url, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ file(filename: "gsec.txt") { size } }' }),
      });
      expect(denied.json<{ errors: { message: string; extensions: { code: string } }[] }>().errors[0]).toMatchObject({
        message: 'Invalid access key',
        extensions: { code: 'UNAUTHENTICATED' },
      });
    });

    it('deleteFile: true with the key, an error with a wrong key, false when unknown', async () => {
      const up = (
        await apollo.mutate({
          mutation: gql(UPLOAD),
          variables: { file: new File(['bye'], 'bye.txt'), deleteKey: 'dk' },
        })
      ).data.uploadFile;
      const del = (key: string, name = up.filename) =>
        request(s.url, 'POST', '/graphql', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query: 'mutation($n: String!, $k: String!) { deleteFile(filename: $n, deleteKey: $k) }',
            variables: { n: name, k: key },
          }),
        });
      const wrong = await del('wrong');
      expect(wrong.status).toBe(401);
      expect(wrong.json<{ errors: { message: string }[] }>().errors[0]!.message).toBe('Invalid delete key');
      expect((await del('dk')).json()).toEqual({ data: { deleteFile: true } });
      expect((await del('dk')).json()).toEqual({ data: { deleteFile: false } });
      expect((await client(s).get(`/selif/${up.filename}`)).status).toBe(404);
    });
  });

  describe('transport rules', () => {
    it('needs the CSRF preflight header (Apollo-Require-Preflight or X-Apollo-Operation-Name)', async () => {
      const before = (await metadata(s)).length;
      const r = await postMultipart(s, uploadParts('csrf'), {});
      expect(r.status).toBe(400);
      expect(r.text).toMatch(/CSRF|preflight/i);
      expect((await metadata(s)).length).toBe(before);
      expect((await postMultipart(s, uploadParts('op name'), { 'x-apollo-operation-name': 'Upload' })).status).toBe(
        200,
      );
    });

    it('one Upload variable read by two fields: the first stores it, the second gets BAD_USER_INPUT', async () => {
      const before = (await metadata(s)).length;
      const r = await postMultipart(s, [
        {
          name: 'operations',
          value: JSON.stringify({
            query:
              'mutation($f: Upload!) { a: uploadFile(file: $f, filename: "twice.txt") { filename } ' +
              'b: uploadFile(file: $f, filename: "twice-b.txt") { filename } }',
            variables: { f: null },
          }),
        },
        { name: 'map', value: JSON.stringify({ '0': ['variables.f'] }) },
        { name: '0', filename: 'twice.txt', value: 'once' },
      ]);
      expect(r.status).toBe(200);
      const body = r.json<{
        data: Record<string, unknown>;
        errors: { path: string[]; extensions: { code: string } }[];
      }>();
      expect(body.data).toEqual({ a: { filename: 'twice.txt' }, b: null });
      expect(body.errors).toMatchObject([{ path: ['b'], extensions: { code: 'BAD_USER_INPUT' } }]);
      expect((await metadata(s)).length).toBe(before + 1);
    });

    it('400 for misordered fields, bad JSON and bad map shapes', async () => {
      const ops = JSON.stringify({ query: UPLOAD, variables: { file: null } });
      const map = JSON.stringify({ '0': ['variables.file'] });
      const cases: Part[][] = [
        [
          { name: 'map', value: map },
          { name: 'operations', value: ops },
          { name: '0', filename: 'a', value: 'x' },
        ],
        [
          { name: 'operations', value: ops },
          { name: '0', filename: 'a', value: 'x' },
          { name: 'map', value: map },
        ],
        [
          { name: 'operations', value: '{not json' },
          { name: 'map', value: map },
        ],
        [
          { name: 'operations', value: ops },
          { name: 'map', value: '[1]' },
        ],
        [
          { name: 'operations', value: ops },
          { name: 'map', value: JSON.stringify({ '0': ['variables.nope'] }) },
        ],
        [
          { name: 'operations', value: ops },
          { name: 'map', value: JSON.stringify({ '0': ['query'] }) },
        ],
        [{ name: 'operations', value: ops }],
      ];
      for (const parts of cases) {
        const r = await postMultipart(s, parts);
        expect([parts.map((p) => p.name).join(','), r.status]).toEqual([parts.map((p) => p.name).join(','), 400]);
        expect(r.json<{ errors: unknown[] }>().errors).toHaveLength(1);
      }
    });

    it('a map cannot pollute prototypes', async () => {
      const ops = JSON.stringify({ query: UPLOAD, variables: { file: null } });
      for (const path of [
        'variables.__proto__.polluted',
        'variables.constructor.prototype.polluted',
        '__proto__.polluted',
        'variables.file.__proto__',
      ]) {
        const r = await postMultipart(s, [
          { name: 'operations', value: ops },
          { name: 'map', value: JSON.stringify({ '0': [path] }) },
          { name: '0', filename: 'a', value: 'x' },
        ]);
        expect(r.status).toBe(400);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });

    it('a file just within the limit is stored; one byte over → 413, nothing kept', async () => {
      expect(
        (await postMultipart(s, uploadParts(Buffer.alloc(2000, 0x61), { filename: 'limit.txt' }))).json(),
      ).toMatchObject({ data: { uploadFile: { size: 2000 } } });
      const before = await storeCounts(s);
      const count = (await metadata(s)).length;
      const r = await postMultipart(s, uploadParts(Buffer.alloc(2001, 0x61), { filename: 'over.txt' }));
      expect(r.status).toBe(413);
      expect(r.json<{ errors: { extensions: { code: string } }[] }>().errors[0]!.extensions.code).toBe(
        'PAYLOAD_TOO_LARGE',
      );
      expect((await metadata(s)).length).toBe(count);
      await eventually(async () => expect(await storeCounts(s)).toEqual(before));
    });

    it('413 for an operations field over the limit and for too many files', async () => {
      const huge = JSON.stringify({ query: UPLOAD, variables: { file: null, pad: 'x'.repeat(5000) } });
      const r = await postMultipart(s, [
        { name: 'operations', value: huge },
        { name: 'map', value: '{}' },
      ]);
      expect(r.status).toBe(413);
      const map: Record<string, string[]> = {};
      const variables: Record<string, null> = {};
      for (let i = 0; i < 11; i++) {
        map[String(i)] = [`variables.f${i}`];
        variables[`f${i}`] = null;
      }
      const many = await postMultipart(s, [
        { name: 'operations', value: JSON.stringify({ query: '{ serverInfo { version } }', variables }) },
        { name: 'map', value: JSON.stringify(map) },
      ]);
      expect(many.status).toBe(413);
    });

    it('a file the operation never reads is drained: the response comes and the connection is reused', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const parts = [
          {
            name: 'operations',
            value: JSON.stringify({ query: '{ serverInfo { version } }', variables: { unused: null } }),
          },
          { name: 'map', value: JSON.stringify({ '0': ['variables.unused'] }) },
          { name: '0', filename: 'big.bin', value: Buffer.alloc(1500, 0x62) },
        ];
        const first = await postMultipart(s, parts, PREFLIGHT, agent);
        expect(first.status).toBe(200);
        expect(first.json()).toMatchObject({ data: { serverInfo: { version: expect.any(String) } } });
        // A failing operation (validation error) leaves its upload unread too.
        const bad = await postMultipart(
          s,
          [
            { name: 'operations', value: JSON.stringify({ query: '{ nope }', variables: { f: null } }) },
            { name: 'map', value: '{"0":["variables.f"]}' },
            { name: '0', filename: 'x', value: 'y' },
          ],
          PREFLIGHT,
          agent,
        );
        expect(bad.status).toBe(400);
        const second = await postMultipart(s, uploadParts('after drain', { filename: 'after.txt' }), PREFLIGHT, agent);
        expect(second.json()).toMatchObject({ data: { uploadFile: { filename: 'after.txt' } } });
      } finally {
        agent.destroy();
      }
    });

    it('a mapped file missing from the request → 400 for the operation', async () => {
      const r = await postMultipart(s, uploadParts('x').slice(0, 2));
      expect(r.json<{ errors: { message: string }[] }>().errors[0]!.message).toMatch(/missing/i);
    });

    it('an Upload variable sent as JSON is refused and stores nothing', async () => {
      const count = (await metadata(s)).length;
      const r = await request(s.url, 'POST', '/graphql', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: UPLOAD, variables: { file: 'not a file' } }),
      });
      expect(r.status).toBe(400);
      expect(r.json<{ errors: { extensions: { code: string } }[] }>().errors[0]!.extensions.code).toBe(
        'BAD_USER_INPUT',
      );
      expect((await metadata(s)).length).toBe(count);
    });

    it('a client that disconnects mid-upload leaves nothing; the operation ends with 499', async () => {
      const before = await storeCounts(s);
      const count = (await metadata(s)).length;
      // The response cannot reach a closed socket (nor Fastify's onResponse): watch its status.
      const responses: http.ServerResponse[] = [];
      const watch = (req: http.IncomingMessage, res: http.ServerResponse) => {
        if (req.url === '/graphql') responses.push(res);
      };
      s.agora.app.server.prependListener('request', watch);
      const m = multipart(uploadParts(Buffer.alloc(1800, 0x63), { filename: 'gone.txt' }));
      const cut = m.body.length - 900;
      await new Promise<void>((resolve, reject) => {
        const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1', () => {
          sock.write(
            `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: ${m.type}\r\n` +
              `Apollo-Require-Preflight: true\r\nContent-Length: ${m.body.length}\r\n\r\n`,
          );
          sock.write(m.body.subarray(0, cut), () =>
            setTimeout(() => {
              sock.destroy();
              resolve();
            }, 200),
          );
        });
        sock.on('error', reject);
      });
      await eventually(() => expect(responses.map((r) => r.statusCode)).toContain(499));
      s.agora.app.server.removeListener('request', watch);
      expect((await metadata(s)).length).toBe(count);
      await eventually(async () => expect(await storeCounts(s)).toEqual(before));
    });
  });
});

describe('GraphQL uploads with API keys required', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor('disk', { FILES_REQUIRE_API_KEY: 'true' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('needs a valid Files-Api-Key header (or a logged-in user)', async () => {
    const denied = await postMultipart(s, uploadParts('x'));
    expect(denied.status).toBe(401);
    expect(denied.json<{ errors: { extensions: { code: string } }[] }>().errors[0]!.extensions.code).toBe(
      'UNAUTHENTICATED',
    );
    expect((await postMultipart(s, uploadParts('x'), { ...PREFLIGHT, 'files-api-key': 'wrong' })).status).toBe(401);
    const key = (await s.agora.services.files.apiKeys.create('gql')).key;
    const ok = await postMultipart(s, uploadParts('x', { filename: 'k.txt' }), { ...PREFLIGHT, 'files-api-key': key });
    expect(ok.json()).toMatchObject({ data: { uploadFile: { filename: 'k.txt' } } });
  });
});
