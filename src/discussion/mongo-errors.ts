/**
 * Reading the driver's duplicate-key errors (a unique index refused a write) by their structure,
 * never by message text.
 */

type ErrorShape = {
  code?: unknown;
  keyPattern?: unknown;
  keyValue?: unknown;
  errorResponse?: { keyPattern?: unknown; keyValue?: unknown };
  writeErrors?: { err?: { keyPattern?: unknown; keyValue?: unknown } }[];
};

export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as ErrorShape).code === 11000;
}

/**
 * The fields of the unique index a duplicate-key error names: MongoDB reports them as
 * `keyPattern` (and `keyValue`). null when the error is not a duplicate key, or when the server
 * does not say which index (FerretDB 1.x sends neither): the caller must then ask the data.
 */
export function duplicateKeyFields(err: unknown): string[] | null {
  if (!isDuplicateKey(err)) return null;
  const e = err as ErrorShape;
  const candidates = [
    e.keyPattern,
    e.errorResponse?.keyPattern,
    e.writeErrors?.[0]?.err?.keyPattern,
    e.keyValue,
    e.errorResponse?.keyValue,
    e.writeErrors?.[0]?.err?.keyValue,
  ];
  for (const c of candidates) {
    if (c && typeof c === 'object' && Object.keys(c).length > 0) return Object.keys(c);
  }
  return null;
}
