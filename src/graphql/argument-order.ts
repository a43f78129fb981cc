/**
 * type-graphql collects `@Arg` parameters as TypeScript applies parameter decorators — last
 * parameter first — and the schema lists arguments in that order (`login(password, username)`).
 * This transform of the built schema lists each resolver method's arguments in the order its
 * parameters are declared, so SDL, introspection and GraphiQL show `login(username, password)` as
 * the contract writes it. It reads type-graphql's metadata (each parameter's position) and rebuilds
 * the schema with graphql-tools' mapSchema; nothing of either library is changed.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { GraphQLFieldConfigArgumentMap, GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

/** For a resolver method: each `@Arg`'s parameter position by name; `@Args` classes' fields share theirs. */
interface Positions {
  byName: Map<string, number>;
  ofArgsClass: number;
}

interface ResolverLike {
  schemaName: string;
  params?: readonly { kind: string; index: number; name?: string }[];
}

/** The parameter positions of every resolver method with arguments, by `Type.field`. */
function declaredPositions(): Map<string, Positions> {
  const storage = getMetadataStorage();
  const positions = new Map<string, Positions>();
  const add = (typeName: string | undefined, resolver: ResolverLike) => {
    if (!typeName) return;
    const byName = new Map<string, number>();
    let ofArgsClass = Number.MAX_SAFE_INTEGER;
    for (const p of resolver.params ?? []) {
      if (p.kind === 'arg' && p.name !== undefined) byName.set(p.name, p.index);
      else if (p.kind === 'args') ofArgsClass = Math.min(ofArgsClass, p.index);
    }
    if (byName.size > 0) positions.set(`${typeName}.${resolver.schemaName}`, { byName, ofArgsClass });
  };
  for (const r of storage.queries) add('Query', r);
  for (const r of storage.mutations) add('Mutation', r);
  for (const r of storage.subscriptions) add('Subscription', r);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  const objectTypeName = (cls: Function | undefined) => storage.objectTypes.find((o) => o.target === cls)?.name;
  for (const r of storage.fieldResolvers) {
    add(objectTypeName(r.getObjectType?.() ?? r.resolverClassMetadata?.getObjectType()), r);
  }
  return positions;
}

/** `schema` with every resolver method's arguments in their declaration order (a new schema). */
export function orderArgumentsAsDeclared(schema: GraphQLSchema): GraphQLSchema {
  const positions = declaredPositions();
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (config, fieldName, typeName) => {
      const declared = positions.get(`${typeName}.${fieldName}`);
      if (!declared || !config.args) return config;
      const position = (name: string) => declared.byName.get(name) ?? declared.ofArgsClass;
      // A stable sort: the fields of an `@Args` class keep their own order.
      const args: GraphQLFieldConfigArgumentMap = Object.fromEntries(
        Object.entries(config.args).sort(([a], [b]) => position(a) - position(b)),
      );
      return { ...config, args };
    },
  });
}
