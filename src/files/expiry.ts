/** Expiry parsing (docs/files-api.md §4.4) and the expired test (§11). */

/** 9999-12-31T23:59:59Z: expiry timestamps are capped here. */
export const MAX_EXPIRY_TIMESTAMP = 253402300799;

const U64_MAX = (1n << 64n) - 1n;

/**
 * The Unix second at which an upload expires, 0 for never.
 * `raw` is the `Files-Expiry` header or the `expires` form field, undefined when absent;
 * `maxExpiry` is FILES_MAX_EXPIRY (0 = unlimited).
 */
export function computeExpiry(raw: string | undefined, maxExpiry: number, nowSeconds: number): number {
  const max = BigInt(maxExpiry);
  let n = max;
  if (raw !== undefined && /^[0-9]+$/.test(raw)) {
    const v = BigInt(raw);
    if (v <= U64_MAX) n = v;
  }
  if (max > 0n && (n === 0n || n > max)) n = max;
  if (n === 0n) return 0;
  const at = BigInt(Math.floor(nowSeconds)) + n;
  return at > BigInt(MAX_EXPIRY_TIMESTAMP) ? MAX_EXPIRY_TIMESTAMP : Number(at);
}

/** A file is expired when its expiry is not 0 and the current time is later than that second. */
export function isExpired(expiry: number, nowMs: number): boolean {
  return expiry !== 0 && nowMs > expiry * 1000;
}
