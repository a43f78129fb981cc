/**
 * `Date.prototype.toISOString()`'s string, built from the UTC fields: the same characters, faster
 * than V8's builtin for the 10,000 timestamps of a 5,000-comment topic, through either front door
 * (bench/api.js). Dates outside the years
 * 1000–9999 (which it writes with fewer or more year digits or a sign) and invalid dates (a
 * RangeError) go to the builtin.
 */
const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

export function isoTime(d: Date): string {
  const year = d.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return d.toISOString();
  return (
    `${year}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${three(d.getUTCMilliseconds())}Z`
  );
}
