import { Field, ID, InterfaceType } from 'type-graphql';
import type { NodeTypeName } from './global-id';

/**
 * Which object type a resolved value is. Every value the schema resolves as a Node carries a
 * `kind` set when it was mapped, so no guessing by shape (synchronous: graphql-jit needs it so).
 */
export function nodeType(value: unknown): NodeTypeName {
  const kind = (value as { kind?: string }).kind;
  switch (kind) {
    case 'topic':
      return 'Topic';
    case 'comment':
      return 'Comment';
    case 'user':
      return 'User';
    case 'group':
      return 'Group';
    case 'file':
      return 'FileInfo';
    default:
      throw new Error(`not a Node: ${String(kind)}`);
  }
}

@InterfaceType('Node', {
  description:
    "An object with a global id (Relay's Global Object Identification): the id is opaque, unique across every type, " +
    'and `node(id:)` finds the object again. Normalised caches key records by it.',
  resolveType: nodeType,
})
export abstract class Node {
  @Field(() => ID, {
    description: 'The global id: opaque, unique across the whole schema; `node(id:)` finds the object again.',
  })
  id!: string;
}
