/**
 * Property-based tests of the discussion rules that read outside input: id36 and cursors (1.2,
 * 7.2), `limit` (2.3), the period grammar (5.2), tag paths (5.3), the login body (2.4), Python
 * repr in messages, JWTs and the Authorization header (3.3, 3.4).
 */
import jwt from 'jsonwebtoken';
import { fc, anyString, hostileString } from './property';
import {
  formatMixedCursor,
  id36ToNumber,
  isId36,
  parseMixedCursor,
  parsePostRef,
  toId36,
} from '../../../src/discussion/rules/id36';
import { HistoryQuery, TopicListQuery, topicListInput } from '../../../src/rest/beta/query.inputs';
import { issuesOf, toInput } from '../../../src/discussion/inputs/validate';
import { parsePeriod, periodStart } from '../../../src/discussion/rules/period';
import { normalizeTag, normalizeTags, parseTagFilter, tagMatchKeys } from '../../../src/discussion/rules/tags';
import { reprJsonMember, reprString } from '../../../src/rest/beta/python-repr';
import { parseLoginBody } from '../../../src/rest/beta/auth.routes';
import { bearerToken, signToken, verifyToken } from '../../../src/discussion/auth/token';
import { ValidationError, type Issue } from '../../../src/core/errors';

const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

/** The problems /api/beta finds in these query parameters, as its error items name them. */
function queryIssues(cls: new () => object, params: Record<string, string>): Issue[] {
  return issuesOf(toInput(cls, params)).map((i) => ({ exception: i.exception ?? 'ValidationError', ...i }));
}
const ID36_CHARS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

describe('id36 (1.2)', () => {
  it('round-trips every safe id, in either letter case', () => {
    fc.assert(
      fc.property(id, fc.boolean(), (n, upper) => {
        const s = toId36(n);
        expect(isId36(s)).toBe(true);
        expect(id36ToNumber(upper ? s.toUpperCase() : s)).toBe(n);
        expect(parsePostRef(s)).toBe(n);
      }),
      { numRuns: 2000 },
    );
  });

  it('any valid id36, however long, is a safe positive id or names nothing (never an overflow)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...ID36_CHARS), minLength: 1, maxLength: 40 }), (s) => {
        fc.pre(s[0] !== '0');
        const n = id36ToNumber(s);
        if (n !== null) {
          expect(Number.isSafeInteger(n) && n >= 1).toBe(true);
          expect(toId36(n)).toBe(s.toLowerCase());
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects 0, leading zeros, signs, and anything outside [0-9a-zA-Z]', () => {
    fc.assert(
      fc.property(hostileString(30), (s) => {
        const issues = queryIssues(TopicListQuery, { after: s });
        const valid = /^[1-9a-zA-Z][0-9a-zA-Z]*$/.test(s);
        expect(isId36(s)).toBe(valid);
        expect(issues.length).toBe(valid ? 0 : 1);
      }),
      { numRuns: 1000 },
    );
  });

  it('mixed cursors round-trip; a bare id36 or any other prefix is malformed', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('topic', 'comment') as fc.Arbitrary<'topic' | 'comment'>,
        id,
        hostileString(20),
        (kind, n, junk) => {
          expect(parseMixedCursor(formatMixedCursor(kind, n))).toEqual({ kind, id: n });
          expect(parseMixedCursor(toId36(n))).toBeUndefined();
          expect(parseMixedCursor(`T-${toId36(n)}`)).toBeUndefined();
          expect(parseMixedCursor(`${junk}-${toId36(n)}`)).toBeUndefined();
          const issues = queryIssues(HistoryQuery, { before: junk });
          expect(issues.length).toBe(/^[tc]-[1-9a-zA-Z][0-9a-zA-Z]*$/.test(junk) ? 0 : 1);
        },
      ),
    );
  });
});

describe('limit (2.3)', () => {
  it('never throws; yields at most one issue; accepts exactly the integers 1..100 in any zero-padded form', () => {
    const raw = fc.oneof(
      hostileString(30),
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc
        .tuple(fc.nat(4), fc.integer({ min: -200, max: 200 }))
        .map(([z, n]) => `${n < 0 ? '-' : ''}${'0'.repeat(z)}${Math.abs(n)}`),
    );
    fc.assert(
      fc.property(raw, (s) => {
        const issues = queryIssues(TopicListQuery, { limit: s });
        expect(issues.length).toBeLessThanOrEqual(1);
        if (!/^-?[0-9]+$/.test(s)) {
          expect(issues[0]).toEqual({
            exception: 'ParameterValidationError',
            message: `Failed to cast value to integer type: ${s}`,
            field: 'limit',
          });
          return;
        }
        const v = BigInt(s);
        if (v < 1n) expect(issues[0]!.message).toBe(`${v} is less than the minimum of 1`);
        else if (v > 100n) expect(issues[0]!.message).toBe(`${v} is greater than the maximum of 100`);
        else {
          expect(issues).toEqual([]);
          expect(topicListInput({ limit: s }).limit).toBe(Number(v));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('order (2.3)', () => {
  it('accepts only the listed values, case-sensitively, and quotes anything else Python-style', () => {
    const allowed = ['activity', 'votes', 'comments', 'new', 'all_activity'] as const;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...allowed),
          fc.constantFrom(...allowed).map((s) => s.toUpperCase()),
          hostileString(30),
        ),
        (s) => {
          const issues = queryIssues(TopicListQuery, { order: s });
          expect(issues.length).toBe((allowed as readonly string[]).includes(s) ? 0 : 1);
          if (issues.length)
            expect(
              issues[0]!.message.endsWith(" is not one of ['activity', 'votes', 'comments', 'new', 'all_activity']"),
            ).toBe(true);
        },
      ),
    );
  });
});

describe('Python repr in messages', () => {
  it('never throws; is one quoted line with no raw control characters', () => {
    fc.assert(
      fc.property(anyString(60), (s) => {
        const r = reprString(s);
        expect(r[0] === "'" || r[0] === '"').toBe(true);
        expect(r[r.length - 1]).toBe(r[0]);
        // eslint-disable-next-line no-control-regex -- control characters are exactly what must not appear
        expect(r).not.toMatch(/[\u0000-\u001f\u007f\u2028\u2029]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('reprJsonMember never throws on any JSON member, and writes a string as reprString does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (v, s) => {
        void reprJsonMember(JSON.stringify({ v }), 'v');
        expect(reprJsonMember(JSON.stringify({ v: { v: [s] } }), 'v')).toBe(`{'v': [${reprString(s)}]}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('plain printable strings without quotes are wrapped as they are', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 _.,;:!?-]{0,30}$/), (s) => expect(reprString(s)).toBe(`'${s}'`)),
    );
  });
});

describe('period (5.2)', () => {
  const valid = /^\d+[hHdD]$/;
  it('never throws; valid exactly when it is `all` or digits and h/d with at least one hour', () => {
    const raw = fc.oneof(
      hostileString(30),
      fc
        .tuple(fc.bigInt({ min: 0n, max: 10n ** 400n }), fc.constantFrom('h', 'H', 'd', 'D', 'w', '', ' d', 'hx'))
        .map(([n, u]) => `${n}${u}`),
      fc.constantFrom('all', 'ALL', 'All', '00d', '0h', '04h', '36500d'),
    );
    fc.assert(
      fc.property(raw, fc.integer({ min: 0, max: 4102444800000 }), (s, nowMs) => {
        const p = parsePeriod(s);
        const expectValid = s === 'all' || (valid.test(s) && BigInt(s.slice(0, -1)) > 0n);
        expect(p !== null).toBe(expectValid);
        const issues = queryIssues(TopicListQuery, { period: s });
        expect(issues.length).toBe(expectValid ? 0 : 1);
        if (p) {
          const start = periodStart(p, new Date(nowMs));
          if (start !== null) {
            expect(start.getTime()).toBeLessThan(nowMs);
            expect(start.getTime()).toBeGreaterThanOrEqual(0);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('tags (5.3, 4.1)', () => {
  const label = fc.stringMatching(/^[a-z0-9]{1,6}( [a-z0-9]{1,6}){0,2}$/);
  const tag = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));

  it("parseTagFilter never throws; a valid filter's key is a label path and cleaning it again changes nothing", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileString(40),
          tag,
          tag.map((t) => t.toUpperCase().replace(/ /g, '_')),
        ),
        (s) => {
          const r = parseTagFilter(s);
          const issues = queryIssues(TopicListQuery, { tag: s });
          expect(issues.length).toBe(r.ok ? 0 : 1);
          if (r.ok) {
            expect(r.key).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)*$/);
            expect(parseTagFilter(r.key)).toEqual(r);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('every contiguous run of whole labels matches its tag; a partial label does not', () => {
    fc.assert(
      fc.property(tag, fc.nat(), fc.nat(), (t, i, j) => {
        const labels = t.split('.');
        const a = i % labels.length;
        const b = a + 1 + (j % (labels.length - a));
        const run = labels.slice(a, b).join('.');
        const keys = tagMatchKeys([t]);
        const filter = parseTagFilter(run);
        expect(filter.ok && keys.includes(filter.key)).toBe(true);
        const first = labels[0]!;
        if (first.length > 1 && !labels.includes(first.slice(0, -1))) {
          const partial = parseTagFilter(first.slice(0, -1));
          expect(partial.ok && keys.includes(partial.key)).toBe(false);
        }
      }),
    );
  });

  it('normalizeTag never throws and is idempotent; normalizeTags keeps order and drops duplicates', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            hostileString(30),
            tag,
            tag.map((t) => `  ${t.toUpperCase().replace(/ /g, '_')} `),
          ),
          { maxLength: 8 },
        ),
        (raw) => {
          for (const r of raw) {
            const n = normalizeTag(r);
            if (n !== null) expect(normalizeTag(n)).toBe(n);
          }
          const { tags } = normalizeTags(raw);
          expect(new Set(tags).size).toBe(tags.length);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('login body (2.4)', () => {
  const operator = fc.constantFrom(
    { $ne: null },
    { $regex: '.*' },
    { $gt: '' },
    { $where: 'true' },
    { $in: ['alice'] },
    ['alice'],
    1,
    true,
    null,
  );

  it('never throws anything but a ValidationError, and only ever returns two strings', () => {
    const body = fc.oneof(
      anyString(80),
      fc.json(),
      fc
        .record(
          {
            username: fc.oneof(fc.string(), operator, fc.jsonValue()),
            password: fc.oneof(fc.string(), operator, fc.jsonValue()),
          },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o)),
    );
    fc.assert(
      fc.property(body, (raw) => {
        try {
          const r = parseLoginBody(raw);
          expect(typeof r.username).toBe('string');
          expect(typeof r.password).toBe('string');
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('operator objects where strings belong are refused, naming the field', () => {
    fc.assert(
      fc.property(operator, fc.string(), fc.boolean(), (op, s, inUsername) => {
        const body = inUsername ? { username: op, password: s } : { username: s, password: op };
        let caught: unknown;
        try {
          parseLoginBody(JSON.stringify(body));
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(ValidationError);
        const issues = (caught as ValidationError).issues;
        expect(issues.map((i) => i.field)).toEqual([inUsername ? 'username' : 'password']);
        expect(issues[0]!.message).toMatch(/ is not of type 'string'$/);
      }),
    );
  });
});

describe('tokens (3.3, 3.4)', () => {
  const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
  const NOW = 1_772_366_400;
  const claims = fc.record({
    sub: fc.integer({ min: 1, max: 10 ** 12 }).map(String),
    username: fc.string({ maxLength: 20 }),
    iat: fc.integer({ min: NOW - 10 ** 6, max: NOW }),
    exp: fc.integer({ min: NOW + 1, max: NOW + 10 ** 8 }),
    tv: fc.nat(1000),
  });

  it('verifyToken never throws and rejects anything random', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileString(200),
          fc.array(fc.base64String({ maxLength: 60 }), { minLength: 3, maxLength: 3 }).map((p) => p.join('.')),
        ),
        (t) => {
          expect(verifyToken(t, SECRET, NOW)).toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a signed token round-trips; any one-character change, another secret, or expiry makes it invalid', () => {
    const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    fc.assert(
      fc.property(claims, fc.nat(), fc.constantFrom(...B64URL), (c, pos, ch) => {
        const t = signToken(c, SECRET);
        expect(verifyToken(t, SECRET, NOW)).toEqual(c);
        const i = pos % t.length;
        fc.pre(t[i] !== ch);
        expect(verifyToken(t.slice(0, i) + ch + t.slice(i + 1), SECRET, NOW)).toBeNull();
        expect(verifyToken(t, `${SECRET}x`, NOW)).toBeNull();
        expect(verifyToken(t, SECRET, c.exp)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it('only HS256 is accepted: alg none, HS384/HS512 and malformed claims are rejected', () => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    fc.assert(
      fc.property(claims, fc.constantFrom('HS384', 'HS512') as fc.Arbitrary<'HS384' | 'HS512'>, (c, alg) => {
        expect(verifyToken(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(c)}.`, SECRET, NOW)).toBeNull();
        expect(verifyToken(jwt.sign(c, SECRET, { algorithm: alg }), SECRET, NOW)).toBeNull();
        expect(
          verifyToken(jwt.sign({ ...c, sub: Number(c.sub) }, SECRET, { algorithm: 'HS256' }), SECRET, NOW),
        ).toBeNull();
        expect(
          verifyToken(jwt.sign({ ...c, tv: String(c.tv) }, SECRET, { algorithm: 'HS256' }), SECRET, NOW),
        ).toBeNull();
        expect(
          verifyToken(jwt.sign({ ...c, sub: { $ne: null } }, SECRET, { algorithm: 'HS256' }), SECRET, NOW),
        ).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it('bearerToken never throws; `Bearer <t>` in any letter case gives t back', () => {
    fc.assert(
      fc.property(
        hostileString(60),
        fc.stringMatching(/^[A-Za-z0-9._-]{1,80}$/),
        fc.constantFrom('Bearer', 'bearer', 'BEARER'),
        (h, t, scheme) => {
          bearerToken(h);
          expect(bearerToken(`${scheme} ${t}`)).toBe(t);
          expect(bearerToken(`Basic ${t}`)).toBeNull();
        },
      ),
    );
  });
});
