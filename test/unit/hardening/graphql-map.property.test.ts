/**
 * Property-based tests of the GraphQL multipart `map` (src/graphql/uploads/map.ts: paths under `variables`, at a
 * null, never through `__proto__`/`prototype`/`constructor`): whatever `operations` and `map` a
 * client sends, applyMap either refuses with a MapError (400/413) or places Uploads only at nulls
 * inside the operation variables, and never touches a prototype.
 */
import { fc, hostileString } from './property';
import { applyMap, MapError } from '../../../src/graphql/uploads/map';
import { Upload } from '../../../src/graphql/uploads/upload';

const SEGMENTS = [
  'variables',
  'file',
  'files',
  '0',
  '1',
  '2',
  '__proto__',
  'prototype',
  'constructor',
  'query',
  'x',
  '',
  '-1',
  '01',
  'length',
  'toString',
  'hasOwnProperty',
];
const segment = fc.oneof(fc.constantFrom(...SEGMENTS), fc.nat(3).map(String), hostileString(6));
const path = fc.oneof(
  fc.array(segment, { minLength: 0, maxLength: 5 }).map((s) => s.join('.')),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => ['variables', ...s].join('.')),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => ['0', 'variables', ...s].join('.')),
);

/** Operations as JSON.parse makes them (so `__proto__` can be an own key), single or batched. */
const variables = fc.dictionary(
  fc.constantFrom('file', 'files', 'x', '__proto__', 'constructor'),
  fc.oneof(fc.constant(null), fc.array(fc.constant(null), { maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
  { maxKeys: 4 },
);
const operation = fc.record(
  { query: fc.constant('mutation { a }'), variables: fc.oneof(variables, fc.jsonValue({ maxDepth: 1 })) },
  { requiredKeys: ['query'] },
);
const operations = fc
  .oneof(operation, fc.array(operation, { minLength: 1, maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }))
  .map((o) => JSON.parse(JSON.stringify(o)) as unknown);
const map = fc
  .oneof(
    fc.dictionary(
      fc.oneof(fc.constantFrom('1', '2', '__proto__', 'file'), hostileString(5)),
      fc.oneof(fc.array(path, { maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })),
      { maxKeys: 4 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map((m) => JSON.parse(JSON.stringify(m)) as unknown);

/** Every place an Upload sits in `value`, as a path. */
function uploadsIn(value: unknown, at: string[] = [], out: string[][] = []): string[][] {
  if (value instanceof Upload) out.push(at);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) uploadsIn(v, [...at, k], out);
  return out;
}

describe('GraphQL multipart map', () => {
  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'x')).toBe(false);
  });

  it(`refuses with a MapError or places Uploads only at former nulls under \`variables\`; never throws \
anything else`, () => {
    fc.assert(
      fc.property(operations, map, fc.integer({ min: 1, max: 5 }), (ops, m, maxFiles) => {
        const before = JSON.stringify(ops);
        let uploads: Map<string, Upload>;
        try {
          uploads = applyMap(ops, m, maxFiles);
        } catch (err) {
          expect(err).toBeInstanceOf(MapError);
          expect([400, 413]).toContain((err as MapError).status);
          return;
        }
        expect(uploads.size).toBeLessThanOrEqual(maxFiles);
        for (const p of uploadsIn(ops)) {
          const v = Array.isArray(ops) ? 1 : 0;
          expect(p[v]).toBe('variables');
          expect(p.some((s) => s === '__proto__' || s === 'prototype' || s === 'constructor')).toBe(false);
        }
        // Only nulls were replaced: with the Uploads written back as null, nothing else changed.
        expect(JSON.stringify(ops, (_k, v: unknown) => (v instanceof Upload ? null : v))).toBe(before);
      }),
      { numRuns: 3000 },
    );
  });

  it('maps valid paths to nulls exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), (n) => {
        const ops = { query: 'mutation { a }', variables: { files: Array.from({ length: n }, () => null) } };
        const m = Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), [`variables.files.${i}`]]));
        const uploads = applyMap(ops, m, 4);
        expect(uploads.size).toBe(n);
        ops.variables.files.forEach((u, i) => expect(u).toBe(uploads.get(String(i))));
      }),
    );
  });
});
