import { isoTime } from '../../../src/core/iso-time';

const same = (d: Date) => expect(isoTime(d)).toBe(d.toISOString());

it('writes what toISOString writes, across the years it formats itself and at their edges', () => {
  for (const s of [
    '1000-01-01T00:00:00.000Z',
    '1970-01-01T00:00:00.000Z',
    '1999-12-31T23:59:59.999Z',
    '2024-02-29T12:05:09.007Z',
    '2026-11-26T09:08:07.060Z',
    '9999-12-31T23:59:59.999Z',
  ])
    same(new Date(s));
  // Random instants over the whole range, milliseconds included.
  const lo = Date.UTC(1000, 0, 1);
  const hi = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  for (let i = 0; i < 20_000; i++) same(new Date(lo + Math.floor(Math.random() * (hi - lo))));
});

it('leaves other years and invalid dates to toISOString: its string or its RangeError', () => {
  for (const d of [
    new Date('0999-12-31T23:59:59.999Z'),
    new Date(Date.UTC(10000, 0, 1)),
    new Date(-8.64e15),
    new Date(8.64e15),
    new Date(Date.UTC(-1, 5, 1)),
  ])
    same(d);
  expect(() => isoTime(new Date(NaN))).toThrow(RangeError);
});
