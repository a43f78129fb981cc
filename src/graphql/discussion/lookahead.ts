/**
 * Looks at what an operation asks below a field, so one service call can answer a whole subtree
 * (e.g. `topic(id) { … comments }` reads topic and tree at once) instead of one call per level.
 */
import {
  FieldNode,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  GraphQLIncludeDirective,
  GraphQLObjectType,
  GraphQLResolveInfo,
  GraphQLSkipDirective,
  isObjectType,
  Kind,
  SelectionSetNode,
} from 'graphql';

export interface ChildField {
  name: string;
  /** Argument values after coercion (defaults applied). */
  args: Record<string, unknown>;
  /** Arguments the operation actually gave (a literal, or a variable it provided). */
  given: Set<string>;
}

/** The arguments a field node actually gives: literals, and variables the request provided. */
export function givenArgs(node: FieldNode, variables: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const a of node.arguments ?? []) {
    if (a.value.kind === Kind.VARIABLE && !(a.value.name.value in variables)) continue;
    out.add(a.name.value);
  }
  return out;
}

function included(node: { directives?: readonly unknown[] }, info: GraphQLResolveInfo): boolean {
  const n = node as Parameters<typeof getDirectiveValues>[1];
  if (getDirectiveValues(GraphQLSkipDirective, n, info.variableValues)?.if === true) return false;
  if (getDirectiveValues(GraphQLIncludeDirective, n, info.variableValues)?.if === false) return false;
  return true;
}

/**
 * The fields selected directly below the current field (through fragments, @skip/@include
 * honoured), with their argument values coerced as graphql-js will coerce them.
 */
export function childFields(info: GraphQLResolveInfo): ChildField[] {
  const type = getNamedType(info.returnType);
  if (!isObjectType(type)) return [];
  const out: ChildField[] = [];
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>): void => {
    if (!set) return;
    for (const sel of set.selections) {
      if (!included(sel, info)) continue;
      if (sel.kind === Kind.FIELD) {
        out.push({ name: sel.name.value, args: argsOf(type, sel, info), given: givenArgs(sel, info.variableValues) });
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (!sel.typeCondition || sel.typeCondition.name.value === type.name) visit(sel.selectionSet, seen);
      } else {
        const name = sel.name.value;
        const frag = info.fragments[name];
        if (frag && !seen.has(name) && frag.typeCondition.name.value === type.name)
          visit(frag.selectionSet, new Set(seen).add(name));
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, new Set());
  return out;
}

function argsOf(type: GraphQLObjectType, node: FieldNode, info: GraphQLResolveInfo): Record<string, unknown> {
  const def = type.getFields()[node.name.value];
  if (!def) return {};
  try {
    return getArgumentValues(def, node, info.variableValues);
  } catch {
    return {}; // graphql-js reports the bad argument itself when it reaches the field
  }
}

/**
 * Whether a field called `name` is selected anywhere below the current field (any depth, through
 * fragments, @skip/@include honoured). Conservative: type conditions are not checked, so a field of
 * that name on another type also counts. Lets a resolver skip reading data nobody asked for.
 */
export function selectsFieldBelow(info: GraphQLResolveInfo, name: string): boolean {
  const seenFragments = new Set<string>();
  const stack: SelectionSetNode[] = info.fieldNodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
  while (stack.length > 0) {
    for (const sel of stack.pop()!.selections) {
      if (!included(sel, info)) continue;
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value === name) return true;
        if (sel.selectionSet) stack.push(sel.selectionSet);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        stack.push(sel.selectionSet);
      } else if (!seenFragments.has(sel.name.value)) {
        seenFragments.add(sel.name.value);
        const frag = info.fragments[sel.name.value];
        if (frag) stack.push(frag.selectionSet);
      }
    }
  }
  return false;
}
