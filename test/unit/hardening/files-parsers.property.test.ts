/**
 * Property-based tests of every Files-* rule (docs/files-api.md) that reads outside input: the filename algorithm
 * (§4.5, §4.6), expiry (§4.4), the JSON preference (§2.2), conditional requests and ranges (§8.2,
 * §8.3), and the request helpers (cookies, Basic auth, header text, origin check).
 */
import { fc, anyString, hostileString } from './property';
import {
  computeName,
  isPossibleStoredName,
  isReservedName,
  MAX_FILENAME_LENGTH,
  nextBare,
  splitRequestedName,
} from '../../../src/files/filename';
import { computeExpiry, MAX_EXPIRY_TIMESTAMP } from '../../../src/files/expiry';
import { prefersJson } from '../../../src/rest/files/accept';
import {
  evaluateConditionals,
  ifRangeAllows,
  parseETagList,
  parseHttpDate,
  parseRange,
} from '../../../src/rest/files/conditional';
import { basicPassword, headerText, isTruthy, parseCookies, passesOriginCheck } from '../../../src/rest/files/http';

const EXTS = ['txt', 'png', 'file', 'html', 'svg', 'tar.gz'];
const detectedExt = fc.constantFrom(...EXTS);
/**
 * A final name: alphanumeric ends, `-` inside, one `.` between bare and extension (or `.tar.` before a compressed one).
 */
const FINAL_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;
/** A requested name built from path-ish pieces, so dots, slashes and tar suffixes come up often. */
const pathish = fc
  .array(
    fc.oneof(
      fc.constantFrom('.', '/', '..', '../', '.tar', '.gz', '.bz2', '.xz', '-', '_', ' ', '\\', '%2f', '\u0000'),
      fc.string({ maxLength: 6 }),
      hostileString(8),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(''));
const requested = fc.oneof(hostileString(80), pathish);

describe('filename algorithm (§4.5)', () => {
  it(`never throws and always yields a clean name: no \`/\`, \`\\\`, \`..\`, control or upper-case characters, \
exactly the allowed alphabet`, () => {
    fc.assert(
      fc.property(requested, fc.boolean(), detectedExt, (r, randomize, ext) => {
        const { name } = computeName(r, randomize, ext);
        expect(name).toMatch(FINAL_NAME);
        expect(name).not.toMatch(/\.\.|\/|\\/);
        expect(name.includes('.')).toBe(true);
        if (name.length <= MAX_FILENAME_LENGTH) expect(isPossibleStoredName(name)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('cleaning is idempotent: a computed name requested again comes back unchanged', () => {
    fc.assert(
      fc.property(requested, detectedExt, detectedExt, (r, ext, otherExt) => {
        const first = computeName(r, false, ext);
        expect(computeName(first.name, false, otherExt).name).toBe(first.name);
      }),
      { numRuns: 2000 },
    );
  });

  it('a name that is already clean round-trips exactly', () => {
    const clean = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?\.[a-z0-9]{1,6}$/);
    fc.assert(fc.property(clean, detectedExt, (name, ext) => expect(computeName(name, false, ext).name).toBe(name)));
  });

  it('disallowed characters are deleted, not replaced (§4.5 step 3)', () => {
    const clean = fc.stringMatching(/^[a-z0-9]{1,12}$/);
    const units = ['_', ' ', '(', ')', '✓', 'é', '\u0000', '#', '?', '&', '"', "'", '<', '>', '%', '+', '='];
    const junk = fc.string({
      unit: fc.constantFrom(...units),
      maxLength: 4,
    });
    fc.assert(
      fc.property(clean, clean, junk, junk, (bare, ext, j1, j2) => {
        const messy = `${bare.slice(0, 1)}${j1}${bare.slice(1)}.${j2}${ext}`;
        expect(computeName(messy, false, 'txt').name).toBe(`${bare}.${ext}`);
      }),
    );
  });

  it('randomize keeps a clean extension and draws 8 characters of [a-z0-9]', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{1,12}\.[a-z0-9]{1,6}$/), (name) => {
        const ext = name.slice(name.indexOf('.') + 1);
        const { name: out, random } = computeName(name, true, 'txt');
        expect(random).toBe(true);
        expect(out).toMatch(new RegExp(`^[a-z0-9]{8}\\.${ext}$`));
      }),
    );
  });

  it("the spec's worked examples hold whatever surrounds them with white space or letter case", () => {
    const table: [string, string][] = [
      ['test.jpg.gz', 'testjpg.gz'],
      ['My File (1).TXT', 'myfile1.txt'],
      ['FOO.TAR.GZ', 'foo.tar.gz'],
      ['a.b.c', 'ab.c'],
      ['bar.tar.zip', 'bartar.zip'],
      ['dot..txt', 'dot.txt'],
      ['../../etc/passwd', 'etcpasswd.txt'],
      ['under_score-dash.Md', 'underscore-dash.md'],
    ];
    const ws = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003'), maxLength: 3 });
    fc.assert(
      fc.property(fc.constantFrom(...table), ws, ws, fc.boolean(), ([r, expected], pre, post, upper) => {
        expect(computeName(`${pre}${upper ? r.toUpperCase() : r}${post}`, false, 'txt').name).toBe(expected);
      }),
    );
  });

  it('runs in linear time on long runs of separators (no regex backtracking): 64 KiB in well under a second', () => {
    const run = fc.constantFrom('-', '.', '.-', '-.', ' -', '_-', 'a-', '.tar');
    fc.assert(
      fc.property(run, fc.constantFrom('a', '', '.', 'b.c'), fc.constantFrom('a', '', '.gz', 'x'), (sep, pre, post) => {
        const name = `${pre}${sep.repeat(Math.floor(65536 / sep.length))}${post}`;
        const started = Date.now();
        splitRequestedName(name);
        computeName(name, false, 'txt');
        expect(Date.now() - started).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });

  it('a `reserved` rule that refuses every random name fails instead of looping forever', () => {
    expect(() => computeName('', true, 'txt', () => true)).toThrow(/reserved/);
  });

  it('a random name is never a reserved one', () => {
    const reservedExt = fc.constantFrom('ico', 'html', 'txt', 'xml', 'php', 'htm');
    fc.assert(
      fc.property(reservedExt, (ext) => expect(isReservedName(computeName('', true, ext).name)).toBe(false)),
      { numRuns: 200 },
    );
  });

  it('splitRequestedName never leaves a character outside its alphabet', () => {
    fc.assert(
      fc.property(requested, (r) => {
        const { bare, ext } = splitRequestedName(r);
        expect(bare).toMatch(/^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)?$/);
        expect(ext).toMatch(/^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)?$/);
        expect(ext).not.toContain('..');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('collision suffixes (§4.6)', () => {
  it('the next name differs, keeps the alphabet, and a chain of them never repeats', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/), (bare) => {
        const seen = new Set([bare]);
        let b = bare;
        for (let i = 0; i < 25; i++) {
          b = nextBare(b);
          expect(b).toMatch(/^[a-z0-9-]+$/);
          expect(seen.has(b)).toBe(false);
          seen.add(b);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('expiry (§4.4)', () => {
  const now = fc.integer({ min: 0, max: MAX_EXPIRY_TIMESTAMP });
  const max = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 ** 12 }));
  const raw = fc.oneof(fc.constant(undefined), hostileString(40), fc.bigInt({ min: 0n, max: 1n << 70n }).map(String));

  it('never throws and always yields 0 or a whole second within the cap', () => {
    fc.assert(
      fc.property(raw, max, now, (r, m, n) => {
        const e = computeExpiry(r, m, n);
        expect(Number.isSafeInteger(e)).toBe(true);
        expect(e === 0 || e > n || e === MAX_EXPIRY_TIMESTAMP).toBe(true);
        expect(e).toBeLessThanOrEqual(MAX_EXPIRY_TIMESTAMP);
        if (m > 0) {
          expect(e).not.toBe(0);
          expect(e).toBeLessThanOrEqual(Math.min(n + m, MAX_EXPIRY_TIMESTAMP));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('anything but decimal digits counts as absent', () => {
    fc.assert(
      fc.property(
        hostileString(40).filter((s) => !/^[0-9]+$/.test(s)),
        max,
        now,
        (r, m, n) => {
          expect(computeExpiry(r, m, n)).toBe(computeExpiry(undefined, m, n));
        },
      ),
    );
  });

  it(`a value within the maximum applies exactly; leading zeros do not matter; above 2^64 − 1 counts as \
absent`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.nat(5), now, (v, zeros, n) => {
        const expected = Math.min(n + v, MAX_EXPIRY_TIMESTAMP);
        expect(computeExpiry(`${'0'.repeat(zeros)}${v}`, 0, n)).toBe(expected);
        expect(computeExpiry(String(v), v, n)).toBe(expected);
        expect(computeExpiry(String((1n << 64n) + BigInt(v)), 0, n)).toBe(0);
      }),
    );
  });
});

describe('JSON preference (§2.2)', () => {
  type Entry = { type: string; q?: string; params: string[] };
  const qValue = fc.oneof(
    fc.constantFrom('1', '1.0', '1.000', '0', '0.0', '0.5', '.5', '0.8', '0.80', '0.9', '0.001'),
    fc.constantFrom('abc', '-1', '2', '1.5', '', '0x1', 'NaN', '1e0'),
  );
  const entry: fc.Arbitrary<Entry> = fc.record(
    {
      type: fc.constantFrom(
        'application/json',
        'Application/JSON',
        'text/plain',
        'text/html',
        '*/*',
        'application/*',
        'application/xml',
        'application/json+x',
        'application/jsonx',
      ),
      q: qValue,
      params: fc.array(fc.constantFrom('charset=utf-8', 'level=1', 'foo'), { maxLength: 2 }),
    },
    { requiredKeys: ['type', 'params'] },
  );
  /** The spec's rule, computed on the structure the header was generated from. */
  const model = (entries: Entry[]): boolean => {
    let best: string | undefined;
    let bestQ = -1;
    for (const e of entries) {
      let q = 1;
      if (e.q !== undefined) {
        const valid = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(e.q) && Number(e.q) <= 1;
        if (!valid) continue;
        q = Number(e.q);
      }
      if (q === 0) continue;
      if (q > bestQ) {
        bestQ = q;
        best = e.type.toLowerCase();
      }
    }
    return best === 'application/json';
  };
  const render = (entries: Entry[], sp: string) =>
    entries.map((e) => [e.type, ...e.params, ...(e.q !== undefined ? [`q=${e.q}`] : [])].join(`;${sp}`)).join(`,${sp}`);

  it('agrees with the rule on generated headers', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.constantFrom('', ' ', '  '), (entries, sp) => {
        expect(prefersJson(render(entries, sp))).toBe(model(entries));
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on any header value, single or repeated', () => {
    fc.assert(
      fc.property(fc.oneof(anyString(200), fc.array(anyString(40), { maxLength: 4 })), (h) => void prefersJson(h)),
      { numRuns: 2000 },
    );
  });
});

describe('ranges (§8.3)', () => {
  const size = fc.integer({ min: 1, max: 2 ** 40 });
  const digits = fc.oneof(
    fc.constant(''),
    fc.nat().map(String),
    fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
    fc.nat(99).map((n) => `00${n}`),
  );

  it('never throws; a partial range always lies within the file', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileString(60),
          fc.tuple(digits, digits).map(([a, b]) => `bytes=${a}-${b}`),
        ),
        size,
        (h, s) => {
          const r = parseRange(h, s);
          if (r.kind === 'partial') {
            expect(r.start).toBeGreaterThanOrEqual(0);
            expect(r.start).toBeLessThanOrEqual(r.end);
            expect(r.end).toBeLessThanOrEqual(s - 1);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('agrees with the rule on single well-formed ranges', () => {
    fc.assert(
      fc.property(digits, digits, size, (a, b, s) => {
        const r = parseRange(`bytes=${a}-${b}`, s);
        if (a === '' && b === '') return expect(r).toEqual({ kind: 'full' });
        if (a === '') {
          const n = Number(b);
          if (n === 0) return expect(r).toEqual({ kind: 'unsatisfiable' });
          return expect(r).toEqual({ kind: 'partial', start: Math.max(0, s - n), end: s - 1 });
        }
        if (b !== '' && Number(b) < Number(a)) return expect(r).toEqual({ kind: 'full' });
        if (Number(a) >= s) return expect(r).toEqual({ kind: 'unsatisfiable' });
        return expect(r).toEqual({
          kind: 'partial',
          start: Number(a),
          end: b === '' ? s - 1 : Math.min(Number(b), s - 1),
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('several ranges or another unit mean the whole file', () => {
    fc.assert(
      fc.property(fc.nat(100), fc.nat(100), size, fc.constantFrom('items', 'bits', 'byte', ''), (a, b, s, unit) => {
        expect(parseRange(`bytes=${a}-${a + b},${a + b + 1}-`, s)).toEqual({ kind: 'full' });
        expect(parseRange(`${unit}=${a}-${a + b}`, s)).toEqual({ kind: 'full' });
      }),
    );
  });
});

describe('conditional requests (§8.2)', () => {
  const sha = fc.stringMatching(/^[0-9a-f]{64}$/);
  const seconds = fc.integer({ min: 0, max: 253402300799 });
  const etagOf = (h: string) => `"${h}"`;

  it('never throws, whatever the four headers hold', () => {
    const h = fc.option(hostileString(80), { nil: undefined });
    fc.assert(
      fc.property(
        h,
        h,
        h,
        h,
        h,
        sha,
        seconds,
        (ifMatch, ifUnmodifiedSince, ifNoneMatch, ifModifiedSince, ifRange, hex, sec) => {
          const v = { etag: etagOf(hex), lastModifiedSec: sec };
          expect(['proceed', 'precondition-failed', 'not-modified']).toContain(
            evaluateConditionals({ ifMatch, ifUnmodifiedSince, ifNoneMatch, ifModifiedSince }, v),
          );
          expect(typeof ifRangeAllows(ifRange, v)).toBe('boolean');
          for (const t of parseETagList(ifMatch ?? '')) expect(t === '*' || /^(W\/)?"[^"]*"$/.test(t)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it(`If-None-Match naming the ETag (anywhere in a list, weak or strong) → 304; If-Match naming it → never \
412`, () => {
    const other = sha.map((h) => etagOf(h));
    fc.assert(
      fc.property(
        sha,
        fc.array(other, { maxLength: 3 }),
        fc.array(other, { maxLength: 3 }),
        fc.boolean(),
        seconds,
        (hex, before, after, weak, sec) => {
          const v = { etag: etagOf(hex), lastModifiedSec: sec };
          const list = [...before, `${weak ? 'W/' : ''}${v.etag}`, ...after].join(', ');
          expect(evaluateConditionals({ ifNoneMatch: list }, v)).toBe('not-modified');
          expect(evaluateConditionals({ ifMatch: [...before, v.etag, ...after].join(',') }, v)).toBe('proceed');
        },
      ),
    );
  });

  it('If-Match with only other tags → 412; If-Match: * → never 412', () => {
    fc.assert(
      fc.property(sha, fc.array(sha, { minLength: 1, maxLength: 3 }), seconds, (hex, others, sec) => {
        fc.pre(!others.includes(hex));
        const v = { etag: etagOf(hex), lastModifiedSec: sec };
        expect(evaluateConditionals({ ifMatch: others.map(etagOf).join(', ') }, v)).toBe('precondition-failed');
        expect(evaluateConditionals({ ifMatch: '*' }, v)).toBe('proceed');
      }),
    );
  });

  it('HTTP-dates in all three formats round-trip to the second', () => {
    const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2049, 11, 31) }), (ms) => {
        const d = new Date(ms);
        const sec = Math.floor(ms / 1000);
        const imf = d.toUTCString();
        expect(parseHttpDate(imf)).toBe(sec);
        const [, dd, mon, yyyy, time] = /^\w{3}, (\d{2}) (\w{3}) (\d{4}) (\S+) GMT$/.exec(imf)!;
        expect(parseHttpDate(`${DAYS[d.getUTCDay()]}, ${dd}-${mon}-${yyyy!.slice(2)} ${time} GMT`)).toBe(sec);
        expect(
          parseHttpDate(`${imf.slice(0, 3)} ${mon} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${yyyy}`),
        ).toBe(sec);
      }),
    );
  });

  it('a value that is not an HTTP-date is ignored (no 412, no 304 from it)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(
            '1',
            '0',
            '-1',
            '2024',
            'May 5',
            'abc 2020',
            '12 13',
            '2026-03-01',
            'yesterday',
            'Sun, 06 Nov 1994',
          ),
          hostileString(30),
        ),
        sha,
        fc.integer({ min: 10 ** 9, max: 2 * 10 ** 9 }),
        (value, hex, sec) => {
          expect(parseHttpDate(value)).toBeUndefined();
          const v = { etag: etagOf(hex), lastModifiedSec: sec };
          expect(evaluateConditionals({ ifUnmodifiedSince: value, ifModifiedSince: value }, v)).toBe('proceed');
        },
      ),
    );
  });
});

describe('request helpers', () => {
  it('never throw on hostile input', () => {
    fc.assert(
      fc.property(hostileString(120), hostileString(40), (a, b) => {
        parseCookies(a);
        basicPassword(a);
        basicPassword(`Basic ${a}`);
        headerText(a);
        isTruthy(a);
        passesOriginCheck({ origin: a, referer: b, 'files-randomize': b }, 'http://example.org', true);
        passesOriginCheck({ referer: a }, `http://${b}`, false);
      }),
      { numRuns: 2000 },
    );
  });

  it('a percent-encoded cookie value reads back exactly; the first occurrence of a name wins', () => {
    const wellFormed = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(
      fc.property(wellFormed, wellFormed, (v, w) => {
        const cookies = parseCookies(
          `a=b; Files-Access-Key=${encodeURIComponent(v)}; Files-Access-Key=${encodeURIComponent(w)}`,
        );
        expect(cookies.get('Files-Access-Key')).toBe(v);
      }),
    );
  });

  it('the Basic password round-trips (everything after the first colon)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }).filter((u) => !u.includes(':')),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (user, pw) => {
          expect(basicPassword(`Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`)).toBe(pw);
        },
      ),
    );
  });

  it('a cross-site Origin never passes the check, whatever else is sent', () => {
    fc.assert(
      fc.property(fc.webUrl(), hostileString(20), (origin, extra) => {
        fc.pre(new URL(origin).origin !== 'https://files.example.org');
        expect(
          passesOriginCheck(
            { origin, 'files-randomize': 'yes', 'x-requested-with': extra, referer: 'https://files.example.org/' },
            'https://files.example.org',
            true,
          ),
        ).toBe(false);
      }),
    );
  });
});
