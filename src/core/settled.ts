/**
 * Reads started together and judged in order: the value of a settled promise, or its reason thrown.
 * `settled(a)` before `settled(b)` reports a's failure first, as if they had run one after the other.
 */
export function settled<T>(r: PromiseSettledResult<T>): T {
  if (r.status === 'rejected') throw r.reason;
  return r.value;
}
