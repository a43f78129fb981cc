/**
 * JSON text for arbitrarily deep plain data. JSON.stringify recurses and overflows the stack on
 * reply chains a few thousand levels deep; this walks an explicit stack instead and produces the
 * same text (same key order, same escaping) for objects, arrays, strings, numbers, booleans and
 * null. Keys whose value is undefined are left out, as JSON.stringify does.
 */
type Frame = { kind: 'array'; items: unknown[]; i: number } | { kind: 'object'; entries: [string, unknown][]; i: number };

export function stringifyDeep(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      out.push(v === undefined ? 'null' : JSON.stringify(v));
    } else if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, i: 0 });
    } else if (v instanceof Date) {
      out.push(JSON.stringify(v));
    } else {
      out.push('{');
      stack.push({ kind: 'object', entries: Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined), i: 0 });
    }
  };
  open(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.kind === 'array') {
      if (top.i >= top.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.i > 0) out.push(',');
      open(top.items[top.i++]);
    } else {
      if (top.i >= top.entries.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      const [k, v] = top.entries[top.i]!;
      out.push(`${top.i > 0 ? ',' : ''}${JSON.stringify(k)}:`);
      top.i++;
      open(v);
    }
  }
  return out.join('');
}
