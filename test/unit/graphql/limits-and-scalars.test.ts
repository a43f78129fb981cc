/** The cost model on the real schema, the depth of the GraphiQL examples, and the DateTime scalar. */
import { getIntrospectionQuery, parse, validate, specifiedRules } from 'graphql';
import { buildGraphQLSchema } from '../../../src/graphql/schema';
import { depthLimitRule } from '../../../src/graphql/limits';
import { estimateCost, TopicSizes } from '../../../src/graphql/cost';
import { readGraphQLConfig } from '../../../src/config/graphql';
import { EnvReader } from '../../../src/config/reader';
import { exampleTabs } from '../../../src/graphiql/examples';
import { DateTimeScalar } from '../../../src/graphql/discussion/scalars';

const schema = buildGraphQLSchema();
const defaults = readGraphQLConfig(new EnvReader({}));
/** The bench dataset's largest topic (bench/seed.js). */
const SIZES: TopicSizes = { byId: new Map(), largest: 5000 };
const operationCost = (
  _schema: unknown,
  doc: ReturnType<typeof parse>,
  _name: undefined,
  vars: Record<string, unknown>,
  sizes: TopicSizes = SIZES,
) => estimateCost(schema, doc, undefined, vars, sizes);
const cost = (q: string, vars: Record<string, unknown> = {}, sizes: TopicSizes = SIZES) =>
  operationCost(schema, parse(q), undefined, vars, sizes);

describe('the cost model', () => {
  it('counts connection sizes', () => {
    const small = cost('{ topics(first: 10) { edges { node { id title } } } }');
    const big = cost('{ topics(first: 100) { edges { node { id title } } } }');
    expect(big).toBeGreaterThan(9 * small);
  });

  it("the issue's bounded queries are well within the default limit", () => {
    expect(
      cost(
        '{ topics(first: 100) { edges { node { author { username } group { path } voted bookmarked ' +
          'commentCount } } } }',
      ),
    ).toBeLessThan(defaults.maxCost);
    expect(cost('{ topic(id: "1") { commentsFlat { author { username } voted bookmarked } } }')).toBeLessThan(
      defaults.maxCost,
    );
    expect(
      cost(
        '{ user(username: "a") { history(first: 100) { edges { node { ... on Topic { group { path } } ' +
          '... on Comment { topic { title } } } } } } }',
      ),
    ).toBeLessThan(defaults.maxCost);
  });

  it('a nested comment tree costs linearly in its depth', () => {
    const level = (n: number): string =>
      n === 0 ? 'id author { username }' : `id author { username } children { ${level(n - 1)} }`;
    const c4 = cost(`{ topic(id: "1") { comments { ${level(4)} } } }`);
    const c8 = cost(`{ topic(id: "1") { comments { ${level(8)} } } }`);
    expect(c8).toBeLessThan(2.5 * c4);
    expect(c8).toBeLessThan(defaults.maxCost);
  });

  it('comment trees of every topic of a page are refused', () => {
    expect(
      cost(
        '{ topics(first: 100) { edges { node { threads { nodes { comment { id textHtml } ' +
          'descendants { comment { id textHtml } } } } } } } }',
      ),
    ).toBeGreaterThan(defaults.maxCost);
  });
});

describe('the cost model uses the sizes the server knows', () => {
  const sized = (comments: number, largest = 5000): TopicSizes => ({ byId: new Map([['t1', comments]]), largest });
  const tree = '{ topic(id: "t1") { threads(first: 1000) { nodes { descendants { comment { textHtml } } } } } }';

  it("a topic named by id costs its comments: the page and the descendants share the topic's comments", () => {
    // topic, threads, nodes, 1,000 (or fewer) descendants fields, each descendant's comment and text.
    expect(cost(tree, {}, sized(5000))).toBe(1 + 1 + 1 + 1000 + 2 * 5000);
    expect(cost(tree, {}, sized(10))).toBe(1 + 1 + 1 + 10 + 2 * 10);
    // A topic the viewer cannot see (0) resolves to null: nothing below it runs.
    expect(cost(tree, {}, sized(0))).toBe(3);
  });

  it('the same selection as a variable, through node(id:), and many times over', () => {
    const byVariable =
      'query($t: ID!) { topic(id: $t) { threads(first: 1000) { nodes { descendants { id: depth } } } } }';
    expect(cost(byVariable, { t: 't1' }, sized(100))).toBe(3 + 100 + 100);
    const aliases = Array.from({ length: 49 }, (_, i) => `a${i}: ${tree.slice(2, -2)}`).join(' ');
    expect(cost(`{ ${aliases} }`, {}, sized(5000))).toBe(49 * (3 + 1000 + 10000));
    const viaNode = '{ node(id: "t1") { ... on Topic { threads(first: 5) { nodes { comment { id } } } } } }';
    expect(cost(viaNode, {}, sized(3))).toBe(1 + 1 + 1 + 3 + 3);
  });

  it('topics reached otherwise count as the largest topic, each of a page its own tree', () => {
    const listing = '{ topics(first: 10) { nodes { threads(first: 1000) { nodes { descendants { depth } } } } } }';
    expect(cost(listing, {}, sized(0, 200))).toBe(1 + 1 + 10 + 10 + 10 * 200 + 10 * 200);
    const history =
      '{ user(username: "a") { history(first: 10) { edges { node { ... on Topic { threads(first: 1000) { ' +
      'nodes { descendants { depth } } } } } } } } }';
    expect(cost(history, {}, sized(0, 200))).toBe(1 + 1 + 1 + 10 + 10 + 10 + 10 * 200 + 10 * 200);
  });

  it('a descendants below a descendants counts each comment once per comment above it', () => {
    const nested = '{ topic(id: "t1") { threads { nodes { descendants { descendants { depth } } } } } }';
    expect(cost(nested, {}, sized(100))).toBeGreaterThanOrEqual(100 * 100);
    const flat = '{ topic(id: "t1") { threads { nodes { descendants { replies { depth } } } } } }';
    expect(cost(flat, {}, sized(100))).toBeLessThan(1000);
  });

  it("nested replies levels share the topic's comments (each comment sits at one depth)", () => {
    const levels = (n: number): string => (n === 0 ? 'depth' : `depth replies { ${levels(n - 1)} }`);
    const tree = (n: number) => `{ topic(id: "t1") { threads { nodes { replies { ${levels(n)} } } } } }`;
    // topic, threads, nodes; 50 `replies` on the top-level comments; then each level's 100 `depth` and
    // 100 `replies` fields, the levels bounded together by the dearest one.
    expect(cost(tree(0), {}, sized(100))).toBe(3 + 50 + 100);
    expect(cost(tree(2), {}, sized(100))).toBe(3 + 50 + 100 + 100 + 100);
    // Two branches of one level are two walks of the same comments.
    const twice = '{ topic(id: "t1") { threads { nodes { replies { a: replies { depth } b: replies { depth } } } } } }';
    expect(cost(twice, {}, sized(100))).toBe(3 + 50 + 2 * (100 + 100));
  });

  it('fields left out by @skip/@include cost nothing', () => {
    const q =
      'query($x: Boolean!) { topic(id: "t1") { threads { nodes { descendants @include(if: $x) { depth } } } } }';
    expect(cost(q, { x: false }, sized(5000))).toBeLessThan(cost(q, { x: true }, sized(5000)) / 10);
  });
});

describe('the GraphiQL examples and GraphiQL itself', () => {
  it.each(exampleTabs.map((t, i) => [i, t] as const))(
    'example %i is within the default depth and cost limits',
    (_i, tab) => {
      const doc = parse(tab.query);
      expect(validate(schema, doc, [...specifiedRules, depthLimitRule(defaults.maxDepth)])).toEqual([]);
      expect(operationCost(schema, doc, undefined, tab.variables ? JSON.parse(tab.variables) : {})).toBeLessThanOrEqual(
        defaults.maxCost,
      );
    },
  );

  it("GraphiQL's own introspection query passes the limits", () => {
    const doc = parse(getIntrospectionQuery());
    expect(validate(schema, doc, [depthLimitRule(defaults.maxDepth)])).toEqual([]);
    expect(operationCost(schema, doc, undefined, {})).toBeLessThanOrEqual(defaults.maxCost);
  });
});

describe('DateTime', () => {
  it('serializes as the REST timestamps: ISO 8601 UTC, three fraction digits, Z', () => {
    expect(DateTimeScalar.serialize(new Date('2026-03-01T12:00:00Z'))).toBe('2026-03-01T12:00:00.000Z');
    expect(DateTimeScalar.serialize(new Date(Date.UTC(2026, 2, 1, 12, 0, 0, 7)))).toBe('2026-03-01T12:00:00.007Z');
  });

  it('parses ISO strings and refuses anything else', () => {
    expect((DateTimeScalar.parseValue('2026-03-01T12:00:00.000Z') as Date).getTime()).toBe(Date.UTC(2026, 2, 1, 12));
    expect(() => DateTimeScalar.parseValue('yesterday')).toThrow();
    expect(() => DateTimeScalar.parseValue(12)).toThrow();
  });
});
