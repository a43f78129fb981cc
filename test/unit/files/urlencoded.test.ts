/** The streaming application/x-www-form-urlencoded decoder behind POST pastes (docs/files-api.md §4.2 step 3). */
import { Readable } from 'node:stream';
import { FIELD_LIMIT, UrlEncodedDecoder } from '../../../src/rest/files/urlencoded';

async function decode(chunks: (string | Buffer)[], maxContent = 1 << 20) {
  const fields = new Map<string, string>();
  let content: Promise<Buffer> | undefined;
  const decoder = new UrlEncodedDecoder(maxContent, {
    onContent(stream) {
      content = (async () => {
        const parts: Buffer[] = [];
        for await (const c of stream) parts.push(c as Buffer);
        return Buffer.concat(parts);
      })();
    },
    onField: (n, v) => fields.set(n, v),
  });
  await new Promise<void>((resolve, reject) => {
    decoder.on('finish', resolve);
    decoder.on('error', reject);
    Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c))).pipe(decoder);
  });
  return { fields, content: content ? await content : undefined };
}

/** Every split of `body` into two chunks decodes the same. */
async function everySplit(body: string) {
  const whole = await decode([body]);
  for (let i = 1; i < body.length; i++) {
    const split = await decode([body.slice(0, i), body.slice(i)]);
    expect(split.content).toEqual(whole.content);
    expect([...split.fields]).toEqual([...whole.fields]);
  }
  return whole;
}

describe('url-encoded decoder', () => {
  it('decodes fields and streams content, across every chunk boundary', async () => {
    const r = await everySplit('filename=MyPaste&content=print%28%22hi%22%29+%2B+1%0A&extension=py');
    expect(r.content?.toString()).toBe('print("hi") + 1\n');
    expect(r.fields.get('filename')).toBe('MyPaste');
    expect(r.fields.get('extension')).toBe('py');
  });

  it('decodes UTF-8 percent escapes to the exact bytes', async () => {
    const r = await everySplit('content=h%C3%A9llo%E2%9C%93');
    expect(r.content?.toString('utf8')).toBe('héllo✓');
  });

  it('keeps broken escapes literally', async () => {
    const r = await everySplit('content=100%25+%zz%4');
    expect(r.content?.toString('latin1')).toBe('100% %zz%4');
  });

  it('only the first content field is the file; names without = are empty fields', async () => {
    const r = await decode(['content=a&content=b&flag&x=1']);
    expect(r.content?.toString()).toBe('a');
    expect(r.fields.get('flag')).toBe('');
    expect(r.fields.get('x')).toBe('1');
  });

  it('an empty content value is an empty stream; no content field → no stream', async () => {
    expect((await decode(['content=&filename=x'])).content).toEqual(Buffer.alloc(0));
    expect((await decode(['filename=x'])).content).toBeUndefined();
  });

  it('refuses a field other than content over 64 KiB, and accepts exactly 64 KiB', async () => {
    await expect(decode([`filename=${'a'.repeat(FIELD_LIMIT)}`])).resolves.toBeDefined();
    await expect(decode([`filename=${'a'.repeat(FIELD_LIMIT + 1)}`])).rejects.toMatchObject({
      status: 400,
      message: 'Bad request',
    });
  });

  it('streams a large content value without collecting it', async () => {
    const big = 'x'.repeat(300_000);
    const r = await decode(['content=', big.slice(0, 100_000), big.slice(100_000)]);
    expect(r.content?.length).toBe(300_000);
  });
});
