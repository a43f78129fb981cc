/**
 * Requests the fuzz run found that hung or stalled the whole process, kept as plain tests.
 */
import { startTestServer, TestServer } from '../../helpers/server';
import { request } from '../files/helpers';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

async function healthy(): Promise<void> {
  const started = Date.now();
  expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  expect(Date.now() - started).toBeLessThan(2000);
}

const QUICK_MS = 3000;

/** A url-encoded paste, as the web form sends it, answered in JSON. */
function postPaste(body: string) {
  return request(s.url, 'POST', '/upload', {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-requested-with': 'test',
      accept: 'application/json',
    },
    body,
  });
}

describe("names longer than the router's parameter limit", () => {
  // The random name drawn for an upload with no usable bare name was checked against the server's
  // routes; over 1024 characters the router reported a match without parameters, read as "a
  // server path", and the name was redrawn forever: one request stopped the process.
  it('a paste with a 2,000-character extension is refused (Filename too long), not a hang', async () => {
    const started = Date.now();
    const body = new URLSearchParams({ content: 'hello', extension: 'x'.repeat(2000) }).toString();
    const r = await postPaste(body);
    expect(r.status).toBe(400);
    expect(r.json()).toEqual({ error: 'Filename too long' });
    expect(Date.now() - started).toBeLessThan(QUICK_MS);
    await healthy();
  });

  it('a multipart file named `.` + 2,000 characters is refused the same way', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello']), `.${'y'.repeat(2000)}`);
    const started = Date.now();
    const res = await fetch(`${s.url}/upload`, {
      method: 'POST',
      headers: { accept: 'application/json', 'x-requested-with': 'test' },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Filename too long' });
    expect(Date.now() - started).toBeLessThan(QUICK_MS);
    await healthy();
  });

  it('a GraphQL upload with such a filename answers an error, not a hang', async () => {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation($f: Upload!, $n: String) { uploadFile(file: $f, filename: $n) { filename } }',
        variables: { f: null, n: `.${'z'.repeat(3000)}` },
      }),
    );
    form.append('map', JSON.stringify({ '0': ['variables.f'] }));
    form.append('0', new Blob(['hello']), 'a.txt');
    const started = Date.now();
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'apollo-require-preflight': 'true' },
      body: form,
    });
    const body = (await res.json()) as { errors?: { message: string; extensions: { code: string } }[] };
    expect(body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0]?.message).toBe('Filename too long');
    expect(Date.now() - started).toBeLessThan(QUICK_MS);
    await healthy();
  });
});

describe('names made of long separator runs', () => {
  // `/^-+|-+$/` backtracks quadratically on a long run of `-` inside a name.
  it('a paste named `a` + 60,000 dashes + `a` is named at once', async () => {
    const started = Date.now();
    const body = new URLSearchParams({
      content: 'hello',
      filename: `a${'-'.repeat(60_000)}a`,
      extension: `t${'.-'.repeat(20_000)}t`,
    }).toString();
    const r = await postPaste(body);
    expect(r.status).toBe(400);
    expect(r.json()).toEqual({ error: 'Filename too long' });
    expect(Date.now() - started).toBeLessThan(QUICK_MS);
    await healthy();
  });
});

describe('a form that fails while its file starts', () => {
  // The paste's `content` was handed to the upload service, then a later field broke the form in
  // the same chunk: the content stream was destroyed with an error before anyone listened for it,
  // an unhandled 'error' event that ends the process.
  it.each([
    ['a field over 64 KiB', `content=abc&x=${'y'.repeat(70 * 1024)}`],
    ['too many fields', `content=abc${'&f=1'.repeat(1100)}`],
  ])('%s after `content` → 400 Bad request, and the process lives on', async (_name, body) => {
    const r = await request(s.url, 'POST', '/upload', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-requested-with': 'test' },
      body,
    });
    expect(r.status).toBe(400);
    expect(r.text).toBe('Bad request\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await healthy();
  });

  it(`a multipart \`file\` field without a filename followed by a broken part → 400, and the process lives \
on`, async () => {
    const b = 'XyZ';
    const body =
      `--${b}\r\nContent-Disposition: form-data; name="file"\r\n\r\nhello\r\n--${b}\r\n` +
      `Content-Disposition: form-data; name="x"\r\n\r\n${'y'.repeat(70 * 1024)}\r\n--${b}--\r\n`;
    const r = await request(s.url, 'POST', '/upload', {
      headers: { 'content-type': `multipart/form-data; boundary=${b}`, 'x-requested-with': 'test' },
      body,
    });
    expect(r.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await healthy();
  });
});
