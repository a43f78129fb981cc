/** createResumableUpload and resumableUpload (docs/files-api.md §4.9) over real HTTP, on both stores. */
import crypto from 'node:crypto';
import { Factory } from '../../helpers/factories';
import { TestServer } from '../../helpers/server';
import { BACKENDS, client, request, startFor } from './helpers';

const CREATE = `mutation ($length: SafeInt!, $filename: String, $accessKey: String) {
  createResumableUpload(length: $length, filename: $filename, accessKey: $accessKey) {
    uploadUrl offset length expiresAt file { id filename sha256sum }
  }
}`;
const STATUS = `query ($url: String!) {
  resumableUpload(uploadUrl: $url) { offset length expiresAt file { id filename size sha256sum } }
}`;

describe.each(BACKENDS)('resumable uploads through GraphQL on %s', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startFor(backend, { FILES_REQUIRE_API_KEY: 'true', FILES_MAX_SIZE: '1000000' });
  });
  afterAll(async () => {
    await s?.close();
  });

  const gql = async (query: string, variables: object, headers: Record<string, string> = {}) => {
    const r = await request(s.url, 'POST', '/graphql', {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: r.status, body: r.json<{ data?: Record<string, any>; errors?: { message: string }[] }>() };
  };

  it('a logged-in viewer gets an upload URL; tus PATCHes finish it; the file is a FileInfo node', async () => {
    const user = await new Factory(s).user();
    const auth = { authorization: `Bearer ${user.token}` };
    const denied = await gql(CREATE, { length: 10 });
    expect(denied.body.errors?.[0]?.message).toMatch(/API key/);
    const created = await gql(CREATE, { length: 10, filename: 'gql.txt' }, auth);
    const up = created.body.data!.createResumableUpload;
    expect(up).toMatchObject({ offset: 0, length: 10, file: null });
    expect(new Date(up.expiresAt).getTime()).toBeGreaterThan(Date.now());
    const path = new URL(up.uploadUrl).pathname;
    const r = await client(s).req('PATCH', path, {
      headers: { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' },
      body: '0123456789',
    });
    expect(r.status).toBe(204);
    const status = (await gql(STATUS, { url: up.uploadUrl })).body.data!.resumableUpload;
    expect(status.offset).toBe(10);
    expect(status.expiresAt).toBeNull();
    expect(status.file.filename).toBe('gql.txt');
    expect(status.file.sha256sum).toBe(crypto.createHash('sha256').update('0123456789').digest('hex'));
    const node = await gql('query ($id: ID!) { node(id: $id) { ... on FileInfo { filename size } } }', {
      id: status.file.id,
    });
    expect(node.body.data!.node).toEqual({ filename: 'gql.txt', size: 10 });
  });

  it('an API key may create one; too large is 413; an unknown URL is null', async () => {
    const { key } = await s.agora.services.files.apiKeys.create('gql');
    const ok = await gql(CREATE, { length: 5 }, { 'files-api-key': key });
    expect(ok.body.data!.createResumableUpload.uploadUrl).toMatch(/\/upload\/resumable\/[A-Za-z0-9_-]{43}$/);
    const big = await gql(CREATE, { length: 1000001 }, { 'files-api-key': key });
    expect(big.status).toBe(413);
    const none = await gql(STATUS, { url: '/upload/resumable/nothing' });
    expect(none.body.data!.resumableUpload).toBeNull();
  });
});
