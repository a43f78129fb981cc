import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { HistoryQuery, TopicListQuery, topicListInput, historyPageInput } from '../../../src/rest/beta/query.inputs';
import { issuesOf, toInput } from '../../../src/discussion/inputs/validate';
import { betaErrorFor } from '../../../src/rest/beta/errors';
import { ValidationError } from '../../../src/core/errors';
import { bearerToken, signToken, verifyToken } from '../../../src/discussion/auth/token';
import { pageFromRows } from '../../../src/discussion/keyset';

const SECRET = 'example-secret-not-for-production-0123';
const EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
  'eyJzdWIiOiIyIiwidXNlcm5hbWUiOiJib2IiLCJpYXQiOjE3NzIzNjY0MDAsImV4cCI6MTc3NDk1ODQwMCwidHYiOjB9.' +
  'uGKlStqbxL7Ql_E2YPfbExrCHNHFNPo1jzlErs_wlnA';
const NOW = 1772366400;

describe('tokens (3.3, 3.4)', () => {
  it('reproduces example 1 exactly', () => {
    expect(signToken({ sub: '2', username: 'bob', iat: NOW, exp: NOW + 30 * 86400, tv: 0 }, SECRET)).toBe(EXAMPLE);
    expect(verifyToken(EXAMPLE, SECRET, NOW)).toEqual({ sub: '2', username: 'bob', iat: NOW, exp: 1774958400, tv: 0 });
  });

  it('rejects expiry at or after exp', () => {
    expect(verifyToken(EXAMPLE, SECRET, 1774958399)).not.toBeNull();
    expect(verifyToken(EXAMPLE, SECRET, 1774958400)).toBeNull();
  });

  it('checks a remembered token against the secret and its expiry on every use, and hands out copies', () => {
    const first = verifyToken(EXAMPLE, SECRET, NOW)!;
    first.sub = '1';
    expect(verifyToken(EXAMPLE, SECRET, NOW)?.sub).toBe('2');
    expect(verifyToken(EXAMPLE, SECRET, 1774958400)).toBeNull();
    expect(verifyToken(EXAMPLE, `${SECRET}x`, NOW)).toBeNull();
    expect(verifyToken(EXAMPLE, SECRET, NOW)?.sub).toBe('2');
  });

  it('rejects a wrong secret, a tampered payload or signature, and malformed tokens', () => {
    expect(verifyToken(EXAMPLE, `${SECRET}x`, NOW)).toBeNull();
    const [h, p, sig] = EXAMPLE.split('.') as [string, string, string];
    const payload = Buffer.from(JSON.stringify({ sub: '1', username: 'bob', iat: NOW, exp: NOW + 99, tv: 0 })).toString(
      'base64url',
    );
    expect(verifyToken(`${h}.${payload}.${sig}`, SECRET, NOW)).toBeNull();
    expect(verifyToken(`${h}.${p}.${sig.slice(0, -2)}AA`, SECRET, NOW)).toBeNull();
    for (const bad of ['', 'x.y.z', 'a.b', `${EXAMPLE}.x`, `${h}.${p}.`, `${h}..${sig}`])
      expect(verifyToken(bad, SECRET, NOW)).toBeNull();
  });

  it('rejects alg none and every algorithm but HS256', () => {
    const payload = { sub: '2', username: 'bob', iat: NOW, exp: NOW + 100, tv: 0 };
    const header = Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url');
    const none = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    expect(verifyToken(none, SECRET, NOW)).toBeNull();
    expect(verifyToken(`${none}c2ln`, SECRET, NOW)).toBeNull();
    expect(verifyToken(jwt.sign(payload, SECRET, { algorithm: 'HS512' }), SECRET, NOW)).toBeNull();
    expect(verifyToken(jwt.sign(payload, SECRET, { algorithm: 'HS384' }), SECRET, NOW)).toBeNull();
  });

  it('requires integer exp, iat, tv and a string sub', () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const sign = (p: object) => {
      const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(p)}`;
      return `${head}.${crypto.createHmac('sha256', SECRET).update(head).digest('base64url')}`;
    };
    expect(verifyToken(sign({ sub: '2', iat: NOW, exp: NOW + 10, tv: 0 }), SECRET, NOW)).not.toBeNull();
    expect(verifyToken(sign({ sub: 2, iat: NOW, exp: NOW + 10, tv: 0 }), SECRET, NOW)).toBeNull();
    expect(verifyToken(sign({ sub: '2', iat: NOW, exp: NOW + 10 }), SECRET, NOW)).toBeNull();
    expect(verifyToken(sign({ sub: '2', iat: NOW, exp: NOW + 10, tv: 1.5 }), SECRET, NOW)).toBeNull();
    expect(verifyToken(sign({ sub: '2', exp: NOW + 10, tv: 0 }), SECRET, NOW)).toBeNull();
    expect(verifyToken(sign({ sub: '2', iat: NOW, exp: NOW + 10.5, tv: 0 }), SECRET, NOW)).toBeNull();
  });

  it('reads only Bearer credentials (scheme case-insensitive)', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER   abc')).toBe('abc');
    for (const bad of ['', 'Bearer', 'Bearer ', 'Basic abc', 'abc', 'Bearer a b', 'Token abc'])
      expect(bearerToken(bad)).toBeNull();
  });
});

describe('parameter checks (2.3): the /api/beta query classes', () => {
  /** The error items REST answers with for these parameters (empty: valid). */
  const items = (cls: new () => object, params: Record<string, string>) => {
    const issues = issuesOf(toInput(cls, params));
    return issues.length === 0 ? [] : betaErrorFor(new ValidationError(issues)).items;
  };
  const list = (params: Record<string, string>) => items(TopicListQuery, params);

  it('limit: cast, bounds and canonical decimal', () => {
    expect(topicListInput({ limit: '007' }).limit).toBe(7);
    expect(topicListInput({}).limit).toBeUndefined();
    const limitIssue = (message: string) => [{ exception: 'ValidationError', message, field: 'limit' }];
    expect(list({ limit: '0101' })).toEqual(limitIssue('101 is greater than the maximum of 100'));
    expect(list({ limit: '-05' })).toEqual(limitIssue('-5 is less than the minimum of 1'));
    expect(list({ limit: '0' })[0]!.message).toBe('0 is less than the minimum of 1');
    expect(list({ limit: '-0' })[0]!.message).toBe('0 is less than the minimum of 1');
    const huge = '99999999999999999999999';
    expect(list({ limit: huge })[0]!.message).toBe(`${huge} is greater than the maximum of 100`);
    for (const bad of ['abc', '', '1.5', ' 5', '5 ', '+5', '1e2', '0x10']) {
      const message = `Failed to cast value to integer type: ${bad}`;
      expect(list({ limit: bad })).toEqual([{ exception: 'ParameterValidationError', message, field: 'limit' }]);
    }
    expect(topicListInput({ limit: '100' }).limit).toBe(100);
  });

  it('order: Python repr of the value and the endpoint list', () => {
    const orders = "['activity', 'votes', 'comments', 'new', 'all_activity']";
    expect(list({ order: "it's" })[0]!.message).toBe(`"it's" is not one of ${orders}`);
    expect(list({ order: '' })[0]!.message).toBe(`'' is not one of ${orders}`);
    expect(list({ order: 'NEW' })).toHaveLength(1);
  });

  it('cursors, period, tag and both cursors', () => {
    expect(topicListInput({ before: '1A' }).before).toBe('1A');
    const pattern = 'String does not match expected pattern.';
    expect(list({ after: 't-1a' })).toEqual([{ exception: 'ValidationError', message: pattern, field: 'after' }]);
    expect(items(HistoryQuery, { after: '1a' })).toHaveLength(1);
    expect(historyPageInput({ after: 'c-1a' }).after).toBe('c-1a');
    expect(list({ period: '1w' })).toEqual([
      { exception: 'ValidationError', message: 'Invalid time period', field: 'period' },
    ]);
    expect(list({ tag: 'a-b' })[0]!.message).toBe('Only letters, numbers, and spaces allowed.');
    expect(list({ tag: 'a..b' })[0]!.message).toBe('Invalid path');
    expect(list({ before: 'x', after: '' })).toEqual([
      { exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'after' },
      { exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' },
    ]);
  });

  it("lists every problem in the spec's order, at most one per parameter", () => {
    const all = list({ order: 'x', tag: '!', period: 'y', after: '0', before: '0', limit: 'z' });
    expect(all.map((i) => [i.exception, i.field])).toEqual([
      ['ParameterValidationError', 'limit'],
      ['ValidationError', 'before'],
      ['ValidationError', 'after'],
      ['ValidationError', 'period'],
      ['ValidationError', 'tag'],
      ['ValidationError', 'order'],
      ['ValidationError', 'before'],
    ]);
  });
});

describe('keyset page flags (5.6)', () => {
  const id = (n: number) => String(n);
  it('follows the worked example', () => {
    // Without a cursor: next when limit+1 rows exist, never prev.
    expect(pageFromRows([5, 4, 3], 2, 'first', id).pageInfo).toEqual({
      hasNext: true,
      hasPrev: false,
      firstCursor: '5',
      lastCursor: '4',
    });
    // after: prev whenever non-empty.
    expect(pageFromRows([1], 2, 'after', id).pageInfo).toEqual({
      hasNext: false,
      hasPrev: true,
      firstCursor: '1',
      lastCursor: '1',
    });
    // before: rows arrive nearest first and are shown in display order; next whenever non-empty.
    const before = pageFromRows([4, 5], 2, 'before', id);
    expect(before.items).toEqual([5, 4]);
    expect(before.pageInfo).toEqual({ hasNext: true, hasPrev: false, firstCursor: '5', lastCursor: '4' });
    expect(pageFromRows([4, 5, 6], 2, 'before', id).pageInfo.hasPrev).toBe(true);
    expect(pageFromRows([], 2, 'after', id).pageInfo).toEqual({
      hasNext: false,
      hasPrev: false,
      firstCursor: null,
      lastCursor: null,
    });
  });
});
