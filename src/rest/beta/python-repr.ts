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

/** Python's repr of a float (`1.0`, `1.5`, `1e+16`, `1.5e-07`, `inf`). */
function reprFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  // toExponential() gives the shortest digits that read back as n, as Python's repr does.
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    const fixed = n.toFixed(Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - exp));
    return fixed.includes('.') ? fixed : `${fixed}.0`;
  }
  const sign = exp < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * Python's repr of a JSON number literal as json.loads reads it: without a fraction or exponent
 * it is an int, kept exactly (`12345678901234567890123`, which a double would round); with one,
 * a float (`1.0` stays `1.0`).
 */
function reprNumberLiteral(literal: string): string {
  if (/^-?\d+$/.test(literal)) return literal === '-0' ? '0' : literal;
  return reprFloat(Number(literal));
}

/** A JSON value as Python holds it: an atom already written as its repr, a list, or a dict. */
type PyValue = { atom: string } | { list: PyValue[] } | { dict: Map<string, PyValue> };

const JSON_TOKEN = /\s*(?:([[\]{}])|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null)|[,:])/y;
const LITERALS: Record<string, string> = { true: 'True', false: 'False', null: 'None' };

/**
 * Reads JSON text that JSON.parse accepted into Python's view of it. No recursion: a body nested
 * tens of thousands of levels deep is read like any other. A repeated key keeps its first place
 * and its last value, as in a Python dict.
 */
function readJson(text: string): PyValue | undefined {
  const top: { list: PyValue[] } = { list: [] };
  const open: { value: { list: PyValue[] } | { dict: Map<string, PyValue> }; key?: string }[] = [{ value: top }];
  const add = (v: PyValue) => {
    const at = open[open.length - 1]!;
    if ('list' in at.value) at.value.list.push(v);
    else {
      at.value.dict.set(at.key!, v);
      at.key = undefined;
    }
  };
  JSON_TOKEN.lastIndex = 0;
  for (let m = JSON_TOKEN.exec(text); m !== null; m = JSON_TOKEN.exec(text)) {
    const [, bracket, string, number, literal] = m;
    if (bracket === '[' || bracket === '{') {
      const v = bracket === '[' ? { list: [] } : { dict: new Map<string, PyValue>() };
      add(v);
      open.push({ value: v });
    } else if (bracket !== undefined) open.pop();
    else if (string !== undefined) {
      const at = open[open.length - 1]!;
      const s = JSON.parse(string) as string;
      if ('dict' in at.value && at.key === undefined) at.key = s;
      else add({ atom: reprString(s) });
    } else if (number !== undefined) add({ atom: reprNumberLiteral(number) });
    else if (literal !== undefined) add({ atom: LITERALS[literal]! });
  }
  return top.list[0];
}

/** Python's repr of a value read by readJson, written without recursion. */
function reprPy(value: PyValue): string {
  const out: string[] = [];
  const todo: (PyValue | string)[] = [value];
  while (todo.length > 0) {
    const v = todo.pop()!;
    if (typeof v === 'string') out.push(v);
    else if ('atom' in v) out.push(v.atom);
    else if ('list' in v) {
      out.push('[');
      todo.push(']');
      for (let i = v.list.length - 1; i >= 0; i--) todo.push(v.list[i]!, ...(i > 0 ? [', '] : []));
    } else {
      out.push('{');
      todo.push('}');
      const entries = [...v.dict];
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, item] = entries[i]!;
        todo.push(item, `${reprString(k)}: `, ...(i > 0 ? [', '] : []));
      }
    }
  }
  return out.join('');
}

/** Python's `repr(json.loads(text)[key])`, for a JSON object's text that has `key`. */
export function reprJsonMember(text: string, key: string): string {
  const value = readJson(text);
  const member = value && 'dict' in value ? value.dict.get(key) : undefined;
  return member === undefined ? 'None' : reprPy(member);
}

/** `['a', 'b']` — a Python list of strings. */
export function reprList(values: readonly string[]): string {
  return `[${values.map(reprString).join(', ')}]`;
}
