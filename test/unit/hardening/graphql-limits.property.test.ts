/**
 * The document limits on the real schema: legitimate documents (GraphiQL's introspection, the
 * examples) pass; random documents from a small grammar never make validation throw, and a
 * refused document is refused without graphql-js's own rules walking it.
 */
import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { fc } from './property';
import { buildGraphQLSchema } from '../../../src/graphql/schema';
import {
  depthLimitRule,
  documentLimitsRule,
  MAX_INTROSPECTION_LISTS,
  MAX_REPEATED_KEY,
  MAX_REPEATED_LEAF,
} from '../../../src/graphql/limits';
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

describe('repeated response keys (OverlappingFieldsCanBeMergedRule is quadratic in them)', () => {
  const rep = (s: string, n: number) => Array.from({ length: n }, () => s).join(' ');
  const repeated = /is repeated too often/;
  const messages = (q: string) => run(q).map((e) => e.message);

  it(`a field with arguments or a selection may answer a key ${MAX_REPEATED_KEY} times, not more`, () => {
    expect(run(`query($x: ID!) { ${rep('node(id: $x) { id }', MAX_REPEATED_KEY)} }`)).toEqual([]);
    expect(messages(`query($x: ID!) { ${rep('node(id: $x) { id }', MAX_REPEATED_KEY + 1)} }`)).toEqual([
      expect.stringMatching(repeated),
    ]);
    expect(messages(`{ ${rep('serverInfo { version }', 999)} }`)).toEqual([expect.stringMatching(repeated)]);
  });

  it(`a plain leaf may repeat ${MAX_REPEATED_LEAF} times (one per fragment), not more`, () => {
    expect(run(`{ topics { nodes { ${rep('id', MAX_REPEATED_LEAF)} } } }`)).toEqual([]);
    expect(messages(`{ topics { nodes { ${rep('id', MAX_REPEATED_LEAF + 1)} } } }`)).toEqual([
      expect.stringMatching(repeated),
    ]);
  });

  it('fields merge through aliases, fragments and inline fragments before they are counted', () => {
    const frags = Array.from({ length: MAX_REPEATED_KEY + 1 }, (_, i) => i);
    const q =
      `query($x: ID!) { ${frags.map((i) => `...F${i}`).join(' ')} } ` +
      frags.map((i) => `fragment F${i} on Query { n: node(id: $x) { id } }`).join(' ');
    expect(messages(q)).toEqual([expect.stringMatching(/"n" is repeated too often/)]);
    expect(messages(`query($x: ID!) { ${rep('... on Query { node(id: $x) { id } }', MAX_REPEATED_KEY + 1)} }`)).toEqual(
      [expect.stringMatching(repeated)],
    );
    // The same fragment spread many times merges with itself: counted once.
    expect(run(`query($x: ID!) { ${rep('...F', 40)} } fragment F on Query { node(id: $x) { id } }`)).toEqual([]);
  });

  it('sub-selections of same-key fields merge too: few at each level, many below', () => {
    // 5 topics × 5 nodes × 5 authors: 125 `author` fields answer one key of one merged set.
    const q = `{ ${rep(`topics { ${rep(`nodes { ${rep('author { id }', 5)} }`, 5)} }`, 5)} }`;
    expect(messages(q)).toEqual([expect.stringMatching(/"nodes" is repeated too often/)]);
  });

  it('a refusal keeps the rule from running: no "fields conflict" errors, one message', () => {
    const q = `query($x: ID!, $y: ID!) { ${rep('node(id: $x) { id }', 300)} ${rep('node(id: $y) { id }', 300)} }`;
    expect(messages(q)).toEqual([expect.stringMatching(repeated)]);
  });

  it('conflicting fields within the bound are still refused by graphql-js (the guarantee stays)', () => {
    expect(messages('query($x: ID!, $y: ID!) { node(id: $x) { id } node(id: $y) { id } }')).toEqual([
      expect.stringMatching(/Fields "node" conflict/),
    ]);
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
