/**
 * The document limits on the real schema: legitimate documents (GraphiQL's introspection, the
 * examples) pass; random documents from a small grammar never make validation throw, and a
 * refused document is refused without graphql-js's own rules walking it.
 */
import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { fc } from './property';
import { buildGraphQLSchema } from '../../../src/graphql/schema';
import { depthLimitRule, documentLimitsRule, MAX_INTROSPECTION_LISTS } from '../../../src/graphql/limits';
import { readGraphQLConfig } from '../../../src/config/graphql';
import { EnvReader } from '../../../src/config/reader';
import { exampleTabs } from '../../../src/graphiql/examples';

const schema = buildGraphQLSchema();
const defaults = readGraphQLConfig(new EnvReader({}));
const rules = [...specifiedRules, documentLimitsRule(defaults), depthLimitRule(defaults.maxDepth)];
const run = (q: string) => validate(schema, parse(q, { maxTokens: defaults.maxTokens }), rules);

describe('legitimate documents', () => {
  it("GraphiQL's introspection query (every option) passes", () => {
    expect(
      run(
        getIntrospectionQuery({
          descriptions: true,
          inputValueDeprecation: true,
          directiveIsRepeatable: true,
          specifiedByUrl: true,
          schemaDescription: true,
        }),
      ),
    ).toEqual([]);
  });

  it.each(exampleTabs.map((t, i) => [i, t.query] as const))('GraphiQL example %i passes', (_i, q) => {
    expect(run(q)).toEqual([]);
  });

  it(`introspection may nest ${MAX_INTROSPECTION_LISTS} lists`, () => {
    expect(run('{ __schema { types { fields { args { name } } } } }')).toEqual([]);
    expect(
      run('{ __schema { types { fields { args { type { fields { name } } } } } } }').map((e) => e.message),
    ).toEqual([expect.stringMatching(/nested too deep/)]);
  });
});

describe('refusals', () => {
  it('a refused document reports only the limits, not what graphql-js would have found walking it', () => {
    const errors = run(`{ ${'nope '.repeat(3000)} }`);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/too many selections/)]);
  });

  it('reports every limit that is exceeded', () => {
    const q = `{ ${Array.from({ length: 120 }, (_, i) => `a${i}: __typename @skip(if: false)`).join(' ')} }`;
    expect(run(q).map((e) => e.message)).toEqual([
      expect.stringMatching(/too many aliases/),
      expect.stringMatching(/too many directives/),
    ]);
  });

  it('random documents never make validation throw, and finish quickly', () => {
    const name = fc.constantFrom(
      '__typename',
      'serverInfo',
      'version',
      'topics',
      'edges',
      'node',
      'id',
      'title',
      'comments',
      'children',
      '__schema',
      'types',
      'fields',
      'type',
      'ofType',
      'name',
      'nope',
    );
    const spread = fc.constantFrom('...A', '...B', '...C');
    const directive = fc.constantFrom('', '@include(if: true)', '@skip(if: false)', '@nope', '@include(if: $v)');
    const selection: fc.Arbitrary<string> = fc.letrec<{ sel: string; set: string }>((tie) => ({
      sel: fc.oneof(
        { depthSize: 'small' },
        fc
          .tuple(fc.option(fc.constantFrom('x:', 'y:', 'z:')), name, directive)
          .map(([a, n, d]) => `${a ?? ''} ${n} ${d}`),
        spread,
        fc.tuple(fc.option(fc.constantFrom('x:', 'y:')), name, tie('set')).map(([a, n, s]) => `${a ?? ''} ${n} ${s}`),
        fc
          .tuple(fc.constantFrom('... on Query', '... on Topic', '... on __Type', '...'), tie('set'))
          .map(([t, s]) => `${t} ${s}`),
      ),
      set: fc.array(tie('sel'), { minLength: 1, maxLength: 5 }).map((sels) => `{ ${sels.join(' ')} }`),
    })).set;
    const fragment = fc
      .tuple(fc.constantFrom('A', 'B', 'C'), fc.constantFrom('Query', '__Type', 'Topic', 'Comment'), selection)
      .map(([n, t, s]) => `fragment ${n} on ${t} ${s}`);
    const doc = fc
      .tuple(
        fc.constantFrom('', 'query Q($v: Boolean)', 'mutation', 'query'),
        selection,
        fc.array(fragment, { maxLength: 4 }),
      )
      .map(([op, s, frags]) => `${op} ${s} ${frags.join(' ')}`);
    fc.assert(
      fc.property(doc, fc.nat(3), (d, repeat) => {
        const text = repeat === 0 ? d : d.replace(/\{/, `{ ${'__typename '.repeat(repeat * 1000)}`);
        const started = Date.now();
        const errors = run(text);
        expect(Array.isArray(errors)).toBe(true);
        expect(Date.now() - started).toBeLessThan(2000);
      }),
      { numRuns: 300 },
    );
  });
});
