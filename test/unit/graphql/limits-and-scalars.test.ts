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
