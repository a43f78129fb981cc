/** Relay arguments ↔ REST page arguments, connections from service pages, and their cost. */
import fc from 'fast-check';
import { ValidationError } from '../../../src/core/errors';
import { pageSizeOf, toConnection, toPageArgs } from '../../../src/graphql/discussion/paging';

function issues(fn: () => unknown): { field?: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.issues;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('toPageArgs', () => {
  it('defaults to 50 items from the start', () => {
    expect(toPageArgs({})).toEqual({ limit: 50 });
  });

  it('maps first/after to limit/after and last/before to limit/before', () => {
    expect(toPageArgs({ first: 10, after: '1a' })).toEqual({ limit: 10, after: '1a' });
    expect(toPageArgs({ last: 10, before: 't-1a' })).toEqual({ limit: 10, before: 't-1a' });
    expect(toPageArgs({ before: '2' })).toEqual({ limit: 50, before: '2' });
    expect(toPageArgs({ first: null, after: null, last: null, before: null })).toEqual({ limit: 50 });
  });

  it('accepts every size from 1 to 100 and refuses every other', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (n) => {
        if (n >= 1 && n <= 100) expect(toPageArgs({ first: n }).limit).toBe(n);
        else expect(issues(() => toPageArgs({ first: n }))[0]!.field).toBe('first');
      }),
    );
  });

  it('uses the REST wording for sizes out of range', () => {
    expect(issues(() => toPageArgs({ first: 0 }))).toEqual([
      expect.objectContaining({ field: 'first', message: '0 is less than the minimum of 1' }),
    ]);
    expect(issues(() => toPageArgs({ last: 101, before: 'a' }))).toEqual([
      expect.objectContaining({ field: 'last', message: '101 is greater than the maximum of 100' }),
    ]);
  });

  it('refuses contradictory combinations, naming the argument', () => {
    expect(issues(() => toPageArgs({ after: 'a', before: 'b' })).map((i) => [i.field, i.message])).toEqual([
      ['before', "Can't specify both after and before."],
    ]);
    expect(issues(() => toPageArgs({ first: 1, last: 1, before: 'b' }))[0]!.field).toBe('last');
    expect(issues(() => toPageArgs({ last: 1 }))[0]!.field).toBe('last');
    expect(issues(() => toPageArgs({ first: 1, before: 'b' }))[0]!.field).toBe('first');
  });

  it('lists every problem at once, at most one per argument', () => {
    expect(issues(() => toPageArgs({ first: 0, after: 'a', before: 'b' })).map((i) => i.field)).toEqual([
      'first',
      'before',
    ]);
    expect(issues(() => toPageArgs({ first: 500, last: 0, before: 'b' })).map((i) => i.field)).toEqual([
      'first',
      'last',
    ]);
  });
});

describe('toConnection', () => {
  it("maps items to edges with their cursors and the page info to Relay's", () => {
    const c = toConnection(
      {
        items: [{ id: 'a' }, { id: 'b' }],
        pageInfo: { hasNext: true, hasPrev: false, firstCursor: 'a', lastCursor: 'b' },
      },
      (i) => `t-${i.id}`,
      (i) => ({ node: i.id }),
    );
    expect(c.edges).toEqual([
      { cursor: 't-a', node: { node: 'a' } },
      { cursor: 't-b', node: { node: 'b' } },
    ]);
    expect(c.nodes).toEqual([{ node: 'a' }, { node: 'b' }]);
    expect(c.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: 'a', endCursor: 'b' });
  });

  it('an empty page has null cursors', () => {
    const c = toConnection(
      { items: [], pageInfo: { hasNext: false, hasPrev: false, firstCursor: null, lastCursor: null } },
      String,
      String,
    );
    expect(c.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  });
});

describe('pageSizeOf', () => {
  it('is the page size a connection is estimated at (default 50, capped at 100)', () => {
    expect(pageSizeOf({})).toBe(50);
    expect(pageSizeOf({ first: 3 })).toBe(3);
    expect(pageSizeOf({ last: 7 })).toBe(7);
    expect(pageSizeOf({ first: 100000 })).toBe(100);
  });
});
