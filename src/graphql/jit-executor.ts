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
 * their text into generated code); the rest, and operations that cannot be resolved, run on
 * graphql-js as before. Compiled operations are kept per parsed document. Apollo keeps parsed documents in its bounded
 * document store and hands the same object for the same query text, so an entry lives as long as
 * Apollo keeps that document (a WeakMap: nothing here grows on its own).
 */
import type { GatewayExecutionResult, GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import {
  BREAK,
  DocumentNode,
  execute,
  getVariableValues,
  GraphQLError,
  GraphQLSchema,
  isInterfaceType,
  isUnionType,
  printSchema,
  visit,
} from 'graphql';
import { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

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

/** How a document runs: on graphql-js, or on graphql-jit with its operations compiled by name. */
type Plan = 'graphql-js' | Map<string, CompiledQuery | GatewayExecutionResult>;

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

export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  // graphql-jit cannot wait for an abstract type's resolveType: refuse to start with one that would.
  for (const type of Object.values(schema.getTypeMap())) {
    if ((isUnionType(type) || isInterfaceType(type)) && type.resolveType?.constructor.name === 'AsyncFunction') {
      throw new Error(`GraphQL type ${type.name}: resolveType must be synchronous for graphql-jit (see schema.ts)`);
    }
  }
  const plans = new WeakMap<DocumentNode, Plan>();
  const planOf = (document: DocumentNode): Plan => {
    let plan = plans.get(document);
    if (!plan) plans.set(document, (plan = hasStringLiteral(document) ? 'graphql-js' : new Map()));
    return plan;
  };
  const executor: GatewayExecutor = async (rc) => {
    const plan = planOf(rc.document);
    // No operation to run (an unknown operationName, or several operations and no name): graphql-js
    // words the error, which Apollo answers as 400 OPERATION_RESOLUTION_FAILURE. Nothing runs.
    // A document with string literals runs on graphql-js too (see hasStringLiteral).
    if (!rc.operation || plan === 'graphql-js') {
      return (await execute({
        schema,
        document: rc.document,
        operationName: rc.request.operationName,
        variableValues: rc.request.variables,
        contextValue: rc.context,
      })) as GatewayExecutionResult;
    }
    const name = rc.operationName ?? '';
    let query = plan.get(name);
    if (!query) {
      query = compileQuery(schema, rc.document, rc.operationName ?? undefined) as
        CompiledQuery | GatewayExecutionResult;
      plan.set(name, query);
    }
    // A document that cannot be compiled answers its errors, as graphql-js's execute would.
    if (!isCompiledQuery(query)) return { ...query, errors: query.errors?.map(asGraphQLError) };
    // Variables are checked by graphql-js first: its errors point at the variable's definition,
    // which is how Apollo tells a client's bad input (400 BAD_USER_INPUT) from a server fault.
    const coerced = getVariableValues(schema, rc.operation.variableDefinitions ?? [], rc.request.variables ?? {}, {
      maxErrors: 50,
    });
    if (coerced.errors) return { errors: coerced.errors };
    const result = (await query.query(undefined, rc.context, rc.request.variables ?? {})) as GatewayExecutionResult;
    return result.errors ? { ...result, errors: result.errors.map(asGraphQLError) } : result;
  };
  return {
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
