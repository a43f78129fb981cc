import { formatMixedCursor, id36ToNumber, isId36, parseMixedCursor, toId36 } from '../../../src/discussion/rules/id36';
import { parsePeriod, periodStart } from '../../../src/discussion/rules/period';
import { normalizeTag, normalizeTags, parseTagFilter, tagMatchKeys } from '../../../src/discussion/rules/tags';

describe('id36 (1.2)', () => {
  it.each([
    [1, '1'],
    [36, '10'],
    [46, '1a'],
    [1295, 'zz'],
    [1000000, 'lfls'],
  ])('%i → %s', (n, s) => {
    expect(toId36(n)).toBe(s);
    expect(id36ToNumber(s)).toBe(n);
  });

  it('accepts any letter case and rejects zero, leading zeros and other characters', () => {
    expect(isId36('1A')).toBe(true);
    expect(id36ToNumber('LFLS')).toBe(1000000);
    for (const bad of ['', '0', '01', '00a', '-1', '1.5', 'a b', 'é', 't-1a']) expect(isId36(bad)).toBe(false);
  });

  it('treats huge values as naming nothing instead of overflowing', () => {
    expect(isId36('zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz')).toBe(true);
    expect(id36ToNumber('zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz')).toBeNull();
    expect(id36ToNumber('zzzzzzzzzzz')).toBeNull();
  });

  it('parses mixed cursors with a lowercase t-/c- prefix only', () => {
    expect(parseMixedCursor('t-1a')).toEqual({ kind: 'topic', id: 46 });
    expect(parseMixedCursor('c-2V')).toEqual({ kind: 'comment', id: 103 });
    for (const bad of ['1a', 'T-1a', 'x-1a', 't-', 't-0', 't-01', 'c_1a', 't-1a-'])
      expect(parseMixedCursor(bad)).toBeUndefined();
    expect(formatMixedCursor('topic', 46)).toBe('t-1a');
    expect(formatMixedCursor('comment', 103)).toBe('c-2v');
  });
});

describe('period (5.2)', () => {
  it.each(['', 'ALL', 'All', '1w', '2 d', '4hx', '0h', '00d', '-1h', '1.5h', ' 4h', 'h', '4'])('%p is invalid', (v) => {
    expect(parsePeriod(v)).toBeNull();
  });

  it.each([
    ['4h', 4],
    ['04h', 4],
    ['2D', 48],
    ['2d', 48],
    ['1H', 1],
    ['36500d', 876000],
  ])('%p is %i hours', (v, hours) => {
    expect(parsePeriod(v)).toEqual({ kind: 'hours', hours });
  });

  it('all means no filter, and spans before 1970 filter nothing', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    expect(parsePeriod('all')).toEqual({ kind: 'all' });
    expect(periodStart({ kind: 'all' }, now)).toBeNull();
    expect(periodStart(parsePeriod('4h')!, now)).toEqual(new Date('2026-03-01T08:00:00.000Z'));
    expect(periodStart(parsePeriod('36500d')!, now)).toBeNull();
    expect(periodStart(parsePeriod('99999999999999999999999999h')!, now)).toBeNull();
  });
});

describe('tag filter (5.3)', () => {
  it('lowercases, maps spaces to _ and checks characters then path', () => {
    expect(parseTagFilter('Hello_World')).toEqual({ ok: true, key: 'hello_world' });
    expect(parseTagFilter('hello world')).toEqual({ ok: true, key: 'hello_world' });
    expect(parseTagFilter('ask.survey')).toEqual({ ok: true, key: 'ask.survey' });
    for (const bad of ['a-b', 'é', 'a/b', '', 'a\tb', '\u212a'])
      expect(parseTagFilter(bad)).toEqual({ ok: false, error: 'chars' });
    for (const bad of ['a..b', '.a', 'a.', '.']) expect(parseTagFilter(bad)).toEqual({ ok: false, error: 'path' });
  });

  const matches = (filter: string, tag: string) => {
    const r = parseTagFilter(filter);
    if (!r.ok) throw new Error('invalid filter');
    return tagMatchKeys([tag]).includes(r.key);
  };

  it.each([
    ['ask', ['ask', 'ask.survey', 'foo.ask'], ['asking', 'ask me']],
    ['survey', ['ask.survey'], ['surveys']],
    ['ask.survey', ['ask.survey', 'ask.survey.x', 'meta.ask.survey'], ['ask', 'survey.ask']],
    ['hello world', ['hello world', 'misc.hello world'], ['hello']],
    ['Hello_World', ['hello world', 'misc.hello world'], ['hello']],
  ])('tag=%p matches the table', (filter, yes, no) => {
    for (const t of yes) expect(matches(filter, t)).toBe(true);
    for (const t of no) expect(matches(filter, t)).toBe(false);
  });

  it('lists every contiguous run of labels', () => {
    expect(tagMatchKeys(['meta.ask.survey']).sort()).toEqual(
      ['ask', 'ask.survey', 'meta', 'meta.ask', 'meta.ask.survey', 'survey'].sort(),
    );
  });
});

describe('tag normalization (4.1)', () => {
  it('stores lowercase with spaces, hierarchy by dots', () => {
    expect(normalizeTag('Two_Player')).toBe('two player');
    expect(normalizeTag(' Ask . Survey ')).toBe('ask.survey');
    expect(normalizeTag('hello   world')).toBe('hello world');
    expect(normalizeTag('a..b')).toBeNull();
    expect(normalizeTag('c++')).toBeNull();
  });

  it('keeps entry order and drops duplicates', () => {
    expect(normalizeTags(['b', 'a', 'B', 'x!'])).toEqual({ tags: ['b', 'a'], invalid: ['x!'], tooMany: false });
  });
});
