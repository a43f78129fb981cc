import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { checkId36, checkLimit, checkMixedCursor, checkNotBoth, checkOrder, checkPeriod, checkTag } from '../../../src/discussion/args';
import { bearerToken, signToken, verifyToken } from '../../../src/discussion/auth/token';
import { pageFromRows } from '../../../src/discussion/keyset';
import type { Issue } from '../../../src/core/errors';
import { TOPIC_ORDERS } from '../../../src/discussion/views';

const SECRET = 'example-secret-not-for-production-0123';
const EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIyIiwidXNlcm5hbWUiOiJib2IiLCJpYXQiOjE3NzIzNjY0MDAsImV4cCI6MTc3NDk1ODQwMCwidHYiOjB9.uGKlStqbxL7Ql_E2YPfbExrCHNHFNPo1jzlErs_wlnA';
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

  it('rejects a wrong secret, a tampered payload or signature, and malformed tokens', () => {
    expect(verifyToken(EXAMPLE, `${SECRET}x`, NOW)).toBeNull();
    const [h, p, sig] = EXAMPLE.split('.') as [string, string, string];
    const payload = Buffer.from(JSON.stringify({ sub: '1', username: 'bob', iat: NOW, exp: NOW + 99, tv: 0 })).toString('base64url');
    expect(verifyToken(`${h}.${payload}.${sig}`, SECRET, NOW)).toBeNull();
    expect(verifyToken(`${h}.${p}.${sig.slice(0, -2)}AA`, SECRET, NOW)).toBeNull();
    for (const bad of ['', 'x.y.z', 'a.b', `${EXAMPLE}.x`, `${h}.${p}.`, `${h}..${sig}`]) expect(verifyToken(bad, SECRET, NOW)).toBeNull();
  });

  it('rejects alg none and every algorithm but HS256', () => {
    const payload = { sub: '2', username: 'bob', iat: NOW, exp: NOW + 100, tv: 0 };
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
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
    for (const bad of ['', 'Bearer', 'Bearer ', 'Basic abc', 'abc', 'Bearer a b', 'Token abc']) expect(bearerToken(bad)).toBeNull();
  });
});

describe('parameter checks (2.3)', () => {
  const run = (fn: (issues: Issue[]) => unknown) => {
    const issues: Issue[] = [];
    const value = fn(issues);
    return { value, issues };
  };

  it('limit: cast, bounds and canonical decimal', () => {
    expect(run((i) => checkLimit('007', i))).toEqual({ value: 7, issues: [] });
    expect(run((i) => checkLimit(undefined, i)).value).toBe(50);
    expect(run((i) => checkLimit('0101', i)).issues).toEqual([{ exception: 'ValidationError', message: '101 is greater than the maximum of 100', field: 'limit' }]);
    expect(run((i) => checkLimit('-05', i)).issues).toEqual([{ exception: 'ValidationError', message: '-5 is less than the minimum of 1', field: 'limit' }]);
    expect(run((i) => checkLimit('0', i)).issues[0]!.message).toBe('0 is less than the minimum of 1');
    expect(run((i) => checkLimit('-0', i)).issues[0]!.message).toBe('0 is less than the minimum of 1');
    expect(run((i) => checkLimit('99999999999999999999999', i)).issues[0]!.message).toBe('99999999999999999999999 is greater than the maximum of 100');
    for (const bad of ['abc', '', '1.5', ' 5', '5 ', '+5', '1e2', '0x10']) {
      expect(run((i) => checkLimit(bad, i)).issues).toEqual([{ exception: 'ParameterValidationError', message: `Failed to cast value to integer type: ${bad}`, field: 'limit' }]);
    }
    expect(run((i) => checkLimit(100, i))).toEqual({ value: 100, issues: [] });
  });

  it('order: Python repr of the value and the endpoint list', () => {
    expect(run((i) => checkOrder("it's", TOPIC_ORDERS, 'activity', i)).issues[0]!.message).toBe(
      `"it's" is not one of ['activity', 'votes', 'comments', 'new', 'all_activity']`,
    );
    expect(run((i) => checkOrder('', TOPIC_ORDERS, 'activity', i)).issues[0]!.message).toBe(`'' is not one of ['activity', 'votes', 'comments', 'new', 'all_activity']`);
    expect(run((i) => checkOrder('NEW', TOPIC_ORDERS, 'activity', i)).issues).toHaveLength(1);
  });

  it('cursors, period, tag and both cursors', () => {
    expect(run((i) => checkId36('before', '1A', i)).value).toEqual({ id: 46 });
    expect(run((i) => checkId36('after', 't-1a', i)).issues).toEqual([{ exception: 'ValidationError', message: 'String does not match expected pattern.', field: 'after' }]);
    expect(run((i) => checkMixedCursor('after', '1a', i)).issues).toHaveLength(1);
    expect(run((i) => checkMixedCursor('after', 'c-1a', i)).value).toEqual({ kind: 'comment', id: 46 });
    expect(run((i) => checkPeriod('1w', i)).issues).toEqual([{ exception: 'ValidationError', message: 'Invalid time period', field: 'period' }]);
    expect(run((i) => checkTag('a-b', i)).issues[0]!.message).toBe('Only letters, numbers, and spaces allowed.');
    expect(run((i) => checkTag('a..b', i)).issues[0]!.message).toBe('Invalid path');
    expect(run((i) => checkNotBoth('x', '', i)).issues).toEqual([{ exception: 'ValidationError', message: "Can't specify both after and before.", field: 'before' }]);
  });
});

describe('keyset page flags (5.6)', () => {
  const id = (n: number) => String(n);
  it('follows the worked example', () => {
    // Without a cursor: next when limit+1 rows exist, never prev.
    expect(pageFromRows([5, 4, 3], 2, 'first', id).pageInfo).toEqual({ hasNext: true, hasPrev: false, firstCursor: '5', lastCursor: '4' });
    // after: prev whenever non-empty.
    expect(pageFromRows([1], 2, 'after', id).pageInfo).toEqual({ hasNext: false, hasPrev: true, firstCursor: '1', lastCursor: '1' });
    // before: rows arrive nearest first and are shown in display order; next whenever non-empty.
    const before = pageFromRows([4, 5], 2, 'before', id);
    expect(before.items).toEqual([5, 4]);
    expect(before.pageInfo).toEqual({ hasNext: true, hasPrev: false, firstCursor: '5', lastCursor: '4' });
    expect(pageFromRows([4, 5, 6], 2, 'before', id).pageInfo.hasPrev).toBe(true);
    expect(pageFromRows([], 2, 'after', id).pageInfo).toEqual({ hasNext: false, hasPrev: false, firstCursor: null, lastCursor: null });
  });
});
