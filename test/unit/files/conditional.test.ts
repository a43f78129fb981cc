/** docs/files-api.md §8.2 conditional requests and §8.3 ranges. */
import {
  evaluateConditionals,
  ifRangeAllows,
  parseETagList,
  parseRange,
  Validators,
} from '../../../src/rest/files/conditional';

const ETAG = '"966152d20a77e739716a625373ee15af16e8f4aec631a329a27da41c204b0171"';
const LM = 1772366400; // Sun, 01 Mar 2026 12:00:00 GMT
const v: Validators = { etag: ETAG, lastModifiedSec: LM };
const date = (sec: number) => new Date(sec * 1000).toUTCString();

describe('§8.3 Range', () => {
  it('bytes=0-3 on a 16-byte file → 0-3', () =>
    expect(parseRange('bytes=0-3', 16)).toEqual({ kind: 'partial', start: 0, end: 3 }));
  it('b is capped at size − 1', () =>
    expect(parseRange('bytes=10-100', 16)).toEqual({ kind: 'partial', start: 10, end: 15 }));
  it('a- to the end', () => expect(parseRange('bytes=5-', 16)).toEqual({ kind: 'partial', start: 5, end: 15 }));
  it('-n: the last n bytes', () => expect(parseRange('bytes=-4', 16)).toEqual({ kind: 'partial', start: 12, end: 15 }));
  it('-n with n ≥ size: the whole file', () =>
    expect(parseRange('bytes=-100', 16)).toEqual({ kind: 'partial', start: 0, end: 15 }));
  it('a ≥ size is unsatisfiable', () => {
    expect(parseRange('bytes=16-', 16)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=16-20', 16)).toEqual({ kind: 'unsatisfiable' });
  });
  it('-0 is unsatisfiable', () => expect(parseRange('bytes=-0', 16)).toEqual({ kind: 'unsatisfiable' }));
  it.each(['bytes=0-1,3-4', 'items=0-3', 'bytes=abc', 'bytes=3-1', 'bytes=-', 'bytes 0-3', '0-3', 'bytes=0-3-4'])(
    '%j is ignored (whole file)',
    (h) => expect(parseRange(h, 16)).toEqual({ kind: 'full' }),
  );
  it('no header → whole file', () => expect(parseRange(undefined, 16)).toEqual({ kind: 'full' }));
});

describe('§8.3 If-Range', () => {
  it('absent → the range applies', () => expect(ifRangeAllows(undefined, v)).toBe(true));
  it('the current ETag → applies; another or a weak one → not', () => {
    expect(ifRangeAllows(ETAG, v)).toBe(true);
    expect(ifRangeAllows('"other"', v)).toBe(false);
    expect(ifRangeAllows(`W/${ETAG}`, v)).toBe(false);
  });
  it('an HTTP-date equal to Last-Modified → applies; any other date → not', () => {
    expect(ifRangeAllows(date(LM), v)).toBe(true);
    expect(ifRangeAllows(date(LM + 1), v)).toBe(false);
    expect(ifRangeAllows('not a date', v)).toBe(false);
  });
});

describe('§8.2 conditionals, in order', () => {
  it('If-Match: * or a strong match proceeds; otherwise 412', () => {
    expect(evaluateConditionals({ ifMatch: '*' }, v)).toBe('proceed');
    expect(evaluateConditionals({ ifMatch: `"x", ${ETAG}` }, v)).toBe('proceed');
    expect(evaluateConditionals({ ifMatch: '"x"' }, v)).toBe('precondition-failed');
    expect(evaluateConditionals({ ifMatch: `W/${ETAG}` }, v)).toBe('precondition-failed');
  });
  it('If-Unmodified-Since earlier than Last-Modified → 412 (only without If-Match)', () => {
    expect(evaluateConditionals({ ifUnmodifiedSince: date(LM - 1) }, v)).toBe('precondition-failed');
    expect(evaluateConditionals({ ifUnmodifiedSince: date(LM) }, v)).toBe('proceed');
    expect(evaluateConditionals({ ifUnmodifiedSince: 'garbage' }, v)).toBe('proceed');
    expect(evaluateConditionals({ ifMatch: ETAG, ifUnmodifiedSince: date(LM - 1) }, v)).toBe('proceed');
  });
  it('If-None-Match: * or a weak match → 304', () => {
    expect(evaluateConditionals({ ifNoneMatch: ETAG }, v)).toBe('not-modified');
    expect(evaluateConditionals({ ifNoneMatch: `W/${ETAG}` }, v)).toBe('not-modified');
    expect(evaluateConditionals({ ifNoneMatch: '*' }, v)).toBe('not-modified');
    expect(evaluateConditionals({ ifNoneMatch: '"other"' }, v)).toBe('proceed');
  });
  it('If-Modified-Since not earlier than Last-Modified → 304 (only without If-None-Match)', () => {
    expect(evaluateConditionals({ ifModifiedSince: date(LM) }, v)).toBe('not-modified');
    expect(evaluateConditionals({ ifModifiedSince: date(LM + 60) }, v)).toBe('not-modified');
    expect(evaluateConditionals({ ifModifiedSince: date(LM - 1) }, v)).toBe('proceed');
    expect(evaluateConditionals({ ifNoneMatch: '"other"', ifModifiedSince: date(LM) }, v)).toBe('proceed');
  });
  it('412 wins over 304', () =>
    expect(evaluateConditionals({ ifMatch: '"x"', ifNoneMatch: ETAG }, v)).toBe('precondition-failed'));
  it('parses entity-tag lists', () =>
    expect(parseETagList(' "a" ,W/"b",*, junk, "c"')).toEqual(['"a"', 'W/"b"', '*', '"c"']));
});
