/** Recognizes the driver's duplicate-key error (a unique index refused a write). */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}
