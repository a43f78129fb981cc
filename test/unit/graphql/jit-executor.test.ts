/** The graphql-jit executor behind Apollo (src/graphql/jit-executor.ts): what it must keep of graphql-js. */
import type { GatewayExecutor, GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import { buildSchema, getOperationAST, GraphQLError, GraphQLSchema, GraphQLUnionType, parse } from 'graphql';
import { hasStringLiteral, jitGateway, selectsEnumField } from '../../../src/graphql/jit-executor';
import { buildGraphQLSchema } from '../../../src/graphql/schema';

const sdl = buildSchema(`
  type Query { item(kind: String!): Item, fail: Int, n(x: Int!): Int, echo(s: String): String }
  type A { a: Int }
  type B { b: Int }
  union Item = A | B
`);
const resolvers = {
  item: ({ kind }: { kind: string }) => (kind === 'a' ? { kind, a: 1 } : { kind, b: 2 }),
  fail: () => {
    throw new Error('boom');
  },
  n: ({ x }: { x: number }) => x * 2,
  echo: ({ s }: { s: unknown }) => String(s),
};
(sdl.getType('Item') as GraphQLUnionType).resolveType = (v) => ((v as { kind: string }).kind === 'a' ? 'A' : 'B');
for (const [name, resolve] of Object.entries(resolvers))
  sdl.getQueryType()!.getFields()[name]!.resolve = (_s, args) => (resolve as (a: unknown) => unknown)(args);

/** Compiles every document at once unless told otherwise. */
const EAGER = { compileAfter: 0, cacheBytes: 64 * 1024 * 1024 };

async function executorOf(schema: GraphQLSchema, options = EAGER): Promise<GatewayExecutor> {
  return (await jitGateway(schema, options).load({ apollo: {} as never })).executor!;
}
function run(
  executor: GatewayExecutor,
  query: string,
  variables: Record<string, unknown> = {},
  operationName?: string,
) {
  const document = parse(query);
  const operation = getOperationAST(document, operationName);
  return executor({
    document,
    operation,
    operationName: operation?.name?.value ?? null,
    request: { query, variables, operationName },
    context: {},
  } as unknown as GatewayGraphQLRequestContext);
}

it('runs operations, unions included', async () => {
  const ex = await executorOf(sdl);
  expect(
    await run(ex, '{ a: item(kind: "a") { ... on A { a } } b: item(kind: "b") { __typename ... on B { b } } }'),
  ).toEqual({ data: { a: { a: 1 }, b: { __typename: 'B', b: 2 } } });
});

it('gives resolver errors as graphql-js GraphQLErrors (extensions an object, cause kept)', async () => {
  const r = await run(await executorOf(sdl), '{ fail }');
  const e = r.errors![0]!;
  expect(e).toBeInstanceOf(GraphQLError);
  expect(e.extensions).toEqual({});
  expect(e.path).toEqual(['fail']);
  expect(e.locations).toEqual([{ line: 1, column: 3 }]);
  expect((e.originalError as Error).message).toBe('boom');
});

it("refuses bad variables with graphql-js's errors, which point at the variable definition", async () => {
  const r = await run(await executorOf(sdl), 'query($x: Int!) { n(x: $x) }', { x: 'ten' });
  expect(r.data).toBeUndefined();
  expect(r.errors![0]!.message).toMatch(/^Variable "\$x" got invalid value "ten"/);
  expect(r.errors![0]!.nodes?.[0]?.kind).toBe('VariableDefinition');
});

it('leaves an operation that cannot be resolved to graphql-js, which refuses it', async () => {
  const r = await run(await executorOf(sdl), '{ n(x: 1) }', {}, 'Nope');
  expect(r.errors![0]!.message).toBe('Unknown operation named "Nope".');
});

it('refuses to start on a schema with an asynchronous resolveType (graphql-jit cannot wait for it)', () => {
  const s = buildSchema('type Query { i: I } type A { a: Int } union I = A');
  (s.getType('I') as GraphQLUnionType).resolveType = async () => 'A';
  expect(() => jitGateway(s, EAGER)).toThrow(/resolveType must be synchronous/);
});

it("Agora's own schema passes that check", () => {
  expect(() => jitGateway(buildGraphQLSchema(), EAGER)).not.toThrow();
});

describe('memory: compiled only when used again, kept within a byte budget', () => {
  it('runs a document on graphql-js compileAfter times, then compiled, with the same answers', async () => {
    const gateway = jitGateway(sdl, { compileAfter: 2, cacheBytes: 64 * 1024 * 1024 });
    const ex = (await gateway.load({ apollo: {} as never })).executor!;
    const same = parse('query($x: Int!) { n(x: $x) }');
    const once = (x: number) =>
      ex({
        document: same,
        operation: getOperationAST(same),
        operationName: null,
        request: { query: '', variables: { x } },
        context: {},
      } as unknown as GatewayGraphQLRequestContext);
    expect(await once(1)).toEqual({ data: { n: 2 } });
    expect(await once(2)).toEqual({ data: { n: 4 } });
    expect(gateway.stats().compiledDocuments).toBe(0);
    expect(await once(3)).toEqual({ data: { n: 6 } });
    expect(gateway.stats().compiledDocuments).toBe(1);
    expect(await once(4)).toEqual({ data: { n: 8 } });
    expect(gateway.stats().compiledDocuments).toBe(1);
  });

  it('the compiled operations kept stay within the byte budget, the oldest going first', async () => {
    const budget = 512 * 1024;
    const gateway = jitGateway(sdl, { compileAfter: 0, cacheBytes: budget });
    const ex = (await gateway.load({ apollo: {} as never })).executor!;
    for (let i = 0; i < 200; i++) {
      const r = await run(
        ex,
        `query($x: Int!) { n(x: $x) ${Array.from({ length: 10 }, (_, j) => `a${i}_${j}: n(x: $x)`).join(' ')} }`,
        { x: i },
      );
      expect((r.data as { n: number }).n).toBe(2 * i);
    }
    const stats = gateway.stats();
    expect(stats.compiledBytes).toBeLessThanOrEqual(budget);
    expect(stats.compiledDocuments).toBeGreaterThan(0);
    expect(stats.compiledDocuments).toBeLessThan(200);
  });
});

describe('string literals never reach generated code', () => {
  // graphql-jit 0.8 turns this literal into statements of the function it generates.
  const payload =
    '__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d1)}; globalThis.agoraInjected = 42; const zz = {a: (1';
  afterEach(() => {
    delete (globalThis as { agoraInjected?: unknown }).agoraInjected;
  });

  it.each([
    ['a plain literal', `{ echo(s: "${payload}") }`],
    ['a literal spelled with \\u escapes', `{ echo(s: "\\u005F\\u005F${payload.slice(2)}") }`],
    ['a block string', `{ echo(s: """${payload}""") }`],
  ])('%s is answered as text and runs nothing', async (_name, query) => {
    const r = await run(await executorOf(sdl), query);
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ echo: payload });
    expect((globalThis as { agoraInjected?: unknown }).agoraInjected).toBeUndefined();
  });

  it('the same text as a variable is passed at run time, compiled path included', async () => {
    const r = await run(await executorOf(sdl), 'query($s: String) { echo(s: $s) }', { s: payload });
    expect(r.data).toEqual({ echo: payload });
    expect((globalThis as { agoraInjected?: unknown }).agoraInjected).toBeUndefined();
  });

  it('hasStringLiteral finds literals anywhere and only them', () => {
    expect(hasStringLiteral(parse('{ n(x: 1) item(kind: $k) { __typename } }'))).toBe(false);
    expect(hasStringLiteral(parse('{ item(kind: "a") { __typename } }'))).toBe(true);
    expect(hasStringLiteral(parse('query { n(x: 1) @include(if: true) } fragment F on Query { echo(s: "x") }'))).toBe(
      true,
    );
    expect(hasStringLiteral(parse('{ f(input: { a: [1, { b: """x""" }] }) }'))).toBe(true);
  });
});

describe('enum outputs keep their serialization (selectsEnumField)', () => {
  const enums = buildSchema(`
    enum Order { NEWEST, VOTES }
    type Settings { order: Order!, orders: [Order!]!, size: Int! }
    type Query { settings: Settings, size: Int }
  `);
  // Internal values other than the names, as the schema's enums have (ACTIVITY is 'activity').
  const order = enums.getType('Order') as unknown as { getValues(): { value: unknown }[] };
  for (const v of order.getValues()) v.value = String((v as unknown as { name: string }).name).toLowerCase();
  enums.getQueryType()!.getFields().settings!.resolve = () => ({ order: 'votes', orders: ['newest'], size: 3 });
  enums.getQueryType()!.getFields().size!.resolve = () => 7;

  it('finds an enum field anywhere (fragments included) and nothing else', () => {
    expect(selectsEnumField(enums, parse('{ settings { size } size }'))).toBe(false);
    expect(selectsEnumField(enums, parse('{ settings { order } }'))).toBe(true);
    expect(selectsEnumField(enums, parse('{ settings { ...F } } fragment F on Settings { orders }'))).toBe(true);
    expect(selectsEnumField(enums, parse('{ settings { ... on Settings { size } } }'))).toBe(false);
  });

  it('an operation selecting enums answers their names on the compiled path, as graphql-js does', async () => {
    const r = await run(await executorOf(enums), '{ settings { order orders size } size }');
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ settings: { order: 'VOTES', orders: ['NEWEST'], size: 3 }, size: 7 });
  });
});
