/** JSON preference of docs/files-api.md §2.2. */

/** A weight in [0, 1], or undefined when unparsable. */
function parseQ(v: string): number | undefined {
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(v)) return undefined;
  const q = Number(v);
  return q >= 0 && q <= 1 ? q : undefined;
}

/**
 * True iff the most preferred media type of `accept` is application/json: the entries with the
 * highest q (unparsable or zero q ignored), the first of them in header order.
 */
export function prefersJson(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (!header) return false;
  let best: string | undefined;
  let bestQ = -1;
  for (const entry of header.split(',')) {
    const [rawType, ...params] = entry.split(';');
    const type = rawType!.trim().toLowerCase();
    if (type === '') continue;
    let q: number | undefined = 1;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      if (p.slice(0, eq).trim().toLowerCase() === 'q') q = parseQ(p.slice(eq + 1).trim());
    }
    if (q === undefined || q === 0) continue;
    if (q > bestQ) {
      bestQ = q;
      best = type;
    }
  }
  return best === 'application/json';
}
