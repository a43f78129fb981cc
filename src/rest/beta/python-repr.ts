/**
 * Python-style `repr`, used verbatim in the REST layer's validation messages (docs/discussion-api.md §2.3,
 * 2.4), e.g. `'foo' is not one of [...]`, `[1, 2] is not of type 'string'`.
 */

// Python's str.isprintable() is false for these categories (the ASCII space excepted).
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

export function reprString(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
      else out += `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

/** Python's repr of a float parsed from JSON (`1.5`, `1e+16`, `1.5e-07`, `inf`). */
function reprNumber(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  // JSON does not tell 1 from 1.0; integral values below 1e16 are taken as the integers they most likely were.
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return Object.is(n, -0) ? '0' : String(n);
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    const fixed = n.toFixed(Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - exp));
    return fixed.includes('.') ? fixed : `${fixed}.0`;
  }
  const sign = exp < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** Python's repr of a JSON value: True/False/None, lists, dicts with quoted keys. */
export function reprValue(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return reprNumber(value);
  if (typeof value === 'string') return reprString(value);
  if (Array.isArray(value)) return `[${value.map(reprValue).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${reprString(k)}: ${reprValue(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** `['a', 'b']` — a Python list of strings. */
export function reprList(values: readonly string[]): string {
  return `[${values.map(reprString).join(', ')}]`;
}
