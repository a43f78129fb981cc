/** docs/files-api.md §4.4 expiry table and the expired test of §11. */
import { computeExpiry, isExpired, MAX_EXPIRY_TIMESTAMP } from '../../../src/files/expiry';

const NOW = 1772366400; // 2026-03-01T12:00:00Z

describe('§4.4 expiry table', () => {
  const rows: [string | undefined, number, number][] = [
    // [Files-Expiry, result with max 0, result with max 300]
    [undefined, 0, NOW + 300],
    ['', 0, NOW + 300],
    ['60', NOW + 60, NOW + 60],
    ['0060', NOW + 60, NOW + 60],
    ['0', 0, NOW + 300],
    ['100000', NOW + 100000, NOW + 300],
    ['abc', 0, NOW + 300],
    ['-5', 0, NOW + 300],
    ['1m', 0, NOW + 300],
    ['+60', 0, NOW + 300],
    ['6e1', 0, NOW + 300],
  ];
  it.each(rows)('%j → max 0: %d, max 300: %d', (raw, unlimited, capped) => {
    expect(computeExpiry(raw, 0, NOW)).toBe(unlimited);
    expect(computeExpiry(raw, 300, NOW)).toBe(capped);
  });

  it('a value above 2^64 − 1 counts as absent', () => {
    expect(computeExpiry('18446744073709551616', 0, NOW)).toBe(0);
    expect(computeExpiry('18446744073709551616', 300, NOW)).toBe(NOW + 300);
  });

  it('large values are capped at 9999-12-31T23:59:59Z', () => {
    expect(computeExpiry('18446744073709551615', 0, NOW)).toBe(MAX_EXPIRY_TIMESTAMP);
    expect(computeExpiry('999999999999', 0, NOW)).toBe(MAX_EXPIRY_TIMESTAMP);
  });

  it('uses whole seconds of the current time', () => {
    expect(computeExpiry('60', 0, NOW + 0.9)).toBe(NOW + 60);
  });
});

describe('§11 expired', () => {
  it('0 never expires', () => expect(isExpired(0, Date.now() + 1e12)).toBe(false));
  it('expired only once the current time is later than the expiry second', () => {
    expect(isExpired(NOW, NOW * 1000)).toBe(false);
    expect(isExpired(NOW, NOW * 1000 + 1)).toBe(true);
    expect(isExpired(NOW, NOW * 1000 - 1)).toBe(false);
  });
});
