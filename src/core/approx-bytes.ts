/**
 * An upper estimate of the heap bytes a plain value (strings, numbers, dates, arrays, objects,
 * buffers) holds, for the byte budgets of the caches (lru-cache's sizeCalculation). It errs on the
 * high side: two bytes per character (V8 keeps Latin-1 strings in one), a heap number per number,
 * three words per property. Values shared with other entries are counted in each. Measured against
 * the heap in test/integration/hardening/cache-budgets.test.ts.
 */
export function approximateBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return 24 + 2 * value.length;
    case 'number':
    case 'bigint':
      return 16;
    case 'object':
      if (value === null) return 8;
      if (value instanceof Date) return 48;
      if (Buffer.isBuffer(value)) return 128 + value.length;
      if (Array.isArray(value)) {
        let n = 32;
        for (const item of value) n += 8 + approximateBytes(item);
        return n;
      }
      return objectShellBytes(value) + sumOfValues(value as Record<string, unknown>);
    default:
      return 8;
  }
}

/** An object without what its properties point to: its header and one slot per property. */
export function objectShellBytes(value: object): number {
  return 64 + 24 * Object.keys(value).length;
}

function sumOfValues(value: Record<string, unknown>): number {
  let n = 0;
  for (const key of Object.keys(value)) n += approximateBytes(value[key]);
  return n;
}
