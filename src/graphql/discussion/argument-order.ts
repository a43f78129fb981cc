/**
 * type-graphql collects `@Arg` parameters as TypeScript applies parameter decorators — last
 * parameter first — and the schema lists arguments in that order (`login(password, username)`).
 * This puts each method's parameters back in declaration order before the schema is built, so SDL,
 * introspection and GraphiQL show `login(username, password)` as the contract writes it.
 */
import { getMetadataStorage } from 'type-graphql';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function orderArgumentsAsDeclared(targets: readonly Function[]): void {
  const params = getMetadataStorage().params;
  const groups = new Map<string, number[]>();
  params.forEach((p, i) => {
    const t = targets.indexOf(p.target);
    if (t < 0) return;
    const key = `${t}:${p.methodName}`;
    const slots = groups.get(key) ?? [];
    slots.push(i);
    groups.set(key, slots);
  });
  for (const slots of groups.values()) {
    const sorted = slots.map((i) => params[i]!).sort((a, b) => a.index - b.index);
    slots.forEach((slot, k) => {
      params[slot] = sorted[k]!;
    });
  }
}
