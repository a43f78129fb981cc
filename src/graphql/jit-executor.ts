/**
 * Operations run by graphql-jit instead of graphql-js's `execute`, plugged into Apollo Server
 * through its `gateway` interface (Apollo 4+ has no other way to replace the executor; parsing,
 * validation, our limit rules and plugins stay Apollo's, before execution).
 *
 * Why: graphql-js resolves every field of every object through generic code (an arguments object,
 * a promise check, a completion switch per field). A 5,000-comment tree is ~100,000 fields, which
 * made the GraphQL topic read far more CPU than the same read over REST (below the budget of
 * 0.8× its throughput). graphql-jit compiles each operation once into a function specialised to
 * its selection set: the same answer, byte for byte, in less time (bench/api.js, GraphQL ÷ REST).
 *
 * Only documents without string literals are compiled (hasStringLiteral: graphql-jit would write
 * their text into generated code), and only once a document has run `compileAfter` times: V8 keeps
 * kilobytes of generated code and bytecode per selection of a compiled document (bench/jit-memory.js
 * measures it), so documents sent once or twice (a client that varies its text, an attacker sending
 * thousands of distinct ones) run on graphql-js, as do operations that cannot be resolved.
 * Compiled operations are kept in an LRU cache bounded by an estimate of those bytes (per selection,
 * fragments expanded); the uses of each document are counted beside Apollo's bounded document store
 * (a WeakMap: a count lives as long as Apollo keeps that parsed document).
 */
import type { GatewayExecutionResult, GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  BREAK,
  DocumentNode,
  execute,
  getNamedType,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  isEnumType,
  isInterfaceType,
  isUnionType,
  printSchema,
  TypeInfo,
  valueFromASTUntyped,
  VariableDefinitionNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import { expandedSelections } from './limits';

/**
 * graphql-jit's errors leave `extensions` undefined when there are none, where graphql-js's are
 * always an object (Apollo reads `extensions.code` and would mask the error): the same error as
 * graphql-js would have made, with the cause kept for formatError (errors.ts).
 */
function asGraphQLError(e: GraphQLError): GraphQLError {
  const error = new GraphQLError(e.message, {
    path: e.path,
    originalError: e.originalError ?? undefined,
    extensions: e.extensions,
  });
  if (e.locations) (error as { locations?: GraphQLError['locations'] }).locations = e.locations;
  return error;
}

/** How a document runs: on graphql-js for good, or on graphql-js until it has run this many times. */
type Plan = 'graphql-js' | { uses: number };
/** A document's compiled operations by name, with the estimated bytes they keep. */
interface Compiled {
  operations: Map<string, CompiledQuery | GatewayExecutionResult>;
  bytes: number;
}

/**
 * Estimated bytes one compiled operation keeps, per selection with fragments expanded (generated
 * source, closures and V8's bytecode once it has run; bench/jit-memory.js measures the figure this
 * is a margin over), plus a fixed part.
 */
const COMPILED_BYTES_PER_SELECTION = 8 * 1024;
const COMPILED_BYTES_FIXED = 16 * 1024;

export interface JitOptions {
  /** Runs of a document on graphql-js before it is compiled. */
  compileAfter: number;
  /** Byte budget (estimated) of the compiled operations kept. */
  cacheBytes: number;
}

/**
 * Whether a document has a string literal anywhere (arguments, input objects, directives).
 * graphql-jit 0.8 writes literal argument values into the JavaScript it generates, through
 * JSON.stringify followed by textual replacements of its own markers, so a crafted string literal
 * becomes code (verified: `echo(s: "__MAGIC_DATE__…1)}; <statements>; const z={a:(1")` runs the
 * statements). Numbers, booleans, enums and null cannot carry text, and variables are passed at run
 * time, never written into code; documents with string literals are therefore left to graphql-js.
 * Clients that pass strings as variables, as GraphQL clients do, get the compiled path.
 */
export function hasStringLiteral(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    StringValue() {
      found = true;
      return BREAK;
    },
  });
  return found;
}

/**
 * Whether `document` selects a field of an enum type anywhere (fragments included).
 *
 * Why it matters: by default graphql-jit checks and serializes every leaf through a runtime call
 * that is handed, eagerly, the field's location and response path as fresh arrays; on a topics page
 * that was ~5 KB of garbage per topic and a third of GraphQL's extra CPU over REST (bench/api.js).
 * Its `disableLeafSerialization` keeps the null and error checks and hands on the resolved value of
 * a built-in scalar or enum as it is. That is graphql-js's answer when the value is already in its
 * serialized form, which our resolvers give for String, ID, Int and Boolean (the view builders make
 * them; test/integration/graphql/executor-parity.test.ts runs every such field of the schema through
 * both executors). Not for enums: ours map names to other internal values (ACTIVITY is 'activity'),
 * so an operation that selects one keeps the serialization.
 */
export function selectsEnumField(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const type = typeInfo.getType();
        if (type && isEnumType(getNamedType(type))) {
          found = true;
          return BREAK;
        }
      },
    }),
  );
  return found;
}

/**
 * The request's variables with each omitted one that declares a default given that default, as
 * graphql-js does when it coerces them. graphql-jit parses the values it is handed itself and
 * ignores the default of a non-null variable (`$n: Int! = 2` omitted: "not provided"). The default is
 * written in its external form (an enum by name, as a client would send it): graphql-jit coerces it
 * as it coerces the client's values. Documents reaching here have no string literals, so neither do
 * the defaults.
 */
export function withDefaults(
  definitions: readonly VariableDefinitionNode[],
  variables: Record<string, unknown>,
): Record<string, unknown> {
  let filled: Record<string, unknown> | undefined;
  for (const def of definitions) {
    const name = def.variable.name.value;
    if (!def.defaultValue || Object.prototype.hasOwnProperty.call(variables, name)) continue;
    filled ??= { ...variables };
    filled[name] = valueFromASTUntyped(def.defaultValue);
  }
  return filled ?? variables;
}

/** What the compiled cache holds now (for tests and the memory benchmark). */
export interface JitStats {
  compiledDocuments: number;
  compiledBytes: number;
}

export function jitGateway(schema: GraphQLSchema, options: JitOptions): GatewayInterface & { stats(): JitStats } {
  // graphql-jit cannot wait for an abstract type's resolveType: refuse to start with one that would.
  for (const type of Object.values(schema.getTypeMap())) {
    if ((isUnionType(type) || isInterfaceType(type)) && type.resolveType?.constructor.name === 'AsyncFunction') {
      throw new Error(`GraphQL type ${type.name}: resolveType must be synchronous for graphql-jit (see schema.ts)`);
    }
  }
  const plans = new WeakMap<DocumentNode, Plan>();
  const compiled = new LRUCache<DocumentNode, Compiled>({
    maxSize: options.cacheBytes,
    sizeCalculation: (c) => Math.max(1, c.bytes),
  });
  const compileAfter = Math.max(0, options.compileAfter);
  /** The compiled operations of a document, or undefined while it still runs on graphql-js. */
  const compiledOf = (document: DocumentNode): Compiled | undefined => {
    const known = compiled.get(document);
    if (known) return known;
    let plan = plans.get(document);
    if (!plan) plans.set(document, (plan = hasStringLiteral(document) ? 'graphql-js' : { uses: 0 }));
    if (plan === 'graphql-js' || plan.uses++ < compileAfter) return undefined;
    // Kept once its first operation is compiled (the cache measures an entry when it is set).
    return { operations: new Map(), bytes: 0 };
  };
  const executor: GatewayExecutor = async (rc) => {
    // No operation to run (an unknown operationName, or several operations and no name): graphql-js
    // words the error, which Apollo answers as 400 OPERATION_RESOLUTION_FAILURE. Nothing runs.
    // A document with string literals runs on graphql-js too (see hasStringLiteral), and so does one
    // not yet run often enough to be compiled.
    const plan = rc.operation ? compiledOf(rc.document) : undefined;
    if (!rc.operation || !plan) {
      return (await execute({
        schema,
        document: rc.document,
        operationName: rc.request.operationName,
        variableValues: rc.request.variables,
        contextValue: rc.context,
      })) as GatewayExecutionResult;
    }
    const name = rc.operationName ?? '';
    let query = plan.operations.get(name);
    if (!query) {
      query = compileQuery(schema, rc.document, rc.operationName ?? undefined, {
        disableLeafSerialization: !selectsEnumField(schema, rc.document),
      }) as CompiledQuery | GatewayExecutionResult;
      plan.operations.set(name, query);
      const bytes = COMPILED_BYTES_FIXED + COMPILED_BYTES_PER_SELECTION * expandedSelections(rc.document);
      // A new entry each time: the cache measures an entry when it is set, evicting others to make room.
      compiled.set(rc.document, { operations: plan.operations, bytes: plan.bytes + bytes });
    }
    // A document that cannot be compiled answers its errors, as graphql-js's execute would.
    if (!isCompiledQuery(query)) return { ...query, errors: query.errors?.map(asGraphQLError) };
    // Variables are checked by graphql-js first: its errors point at the variable's definition,
    // which is how Apollo tells a client's bad input (400 BAD_USER_INPUT) from a server fault.
    const coerced = getVariableValues(schema, rc.operation.variableDefinitions ?? [], rc.request.variables ?? {}, {
      maxErrors: 50,
    });
    if (coerced.errors) return { errors: coerced.errors };
    const variables = withDefaults(rc.operation.variableDefinitions ?? [], rc.request.variables ?? {});
    const result = (await query.query(undefined, rc.context, variables)) as GatewayExecutionResult;
    return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
  };
  return {
    stats: () => ({ compiledDocuments: compiled.size, compiledBytes: compiled.calculatedSize }),
    async load() {
      return { schema, executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    async stop() {},
  };
}
