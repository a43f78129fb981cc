/** The `map` field of the GraphQL multipart request spec: placement, shape errors, no prototype pollution. */
import { applyMap, MapError } from '../../../src/graphql/uploads/map';
import { Upload } from '../../../src/graphql/uploads/upload';

const ops = () => ({
  query: 'mutation($f: Upload!, $l: [Upload]) { a }',
  variables: { f: null, l: [null, null], nested: { g: null } },
});

describe('GraphQL multipart map', () => {
  it('puts one Upload per entry at every path it names', () => {
    const o = ops();
    const uploads = applyMap(
      o,
      { '1': ['variables.f'], '2': ['variables.l.0', 'variables.l.1'], x: ['variables.nested.g'] },
      10,
    );
    expect([...uploads.keys()]).toEqual(['1', '2', 'x']);
    expect(o.variables.f).toBe(uploads.get('1'));
    expect(o.variables.l[0]).toBe(uploads.get('2'));
    expect(o.variables.l[1]).toBe(uploads.get('2'));
    expect(o.variables.nested.g).toBeInstanceOf(Upload);
  });

  it('supports batches: N.variables…', () => {
    const batch = [ops(), ops()];
    applyMap(batch, { '1': ['1.variables.f'] }, 10);
    expect(batch[1]!.variables.f).toBeInstanceOf(Upload);
    expect(batch[0]!.variables.f).toBeNull();
    expect(() => applyMap(batch, { '1': ['variables.f'] }, 10)).toThrow(MapError);
    expect(() => applyMap(batch, { '1': ['2.variables.f'] }, 10)).toThrow(MapError);
  });

  it.each([
    [['variables.__proto__.polluted']],
    [['variables.constructor.prototype.polluted']],
    [['__proto__.variables.f']],
    [['variables.f.__proto__']],
    [['variables.toString']],
    [['variables.hasOwnProperty']],
  ])('refuses %j and pollutes nothing', (paths) => {
    expect(() => applyMap(ops(), { '1': paths }, 10)).toThrow(MapError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('a JSON "__proto__" key in operations is walked as data only if named, and naming it is refused', () => {
    const o = JSON.parse('{"variables":{"__proto__":{"x":null},"f":null}}');
    expect(() => applyMap(o, { '1': ['variables.__proto__.x'] }, 10)).toThrow(MapError);
    expect(Object.prototype).not.toHaveProperty('x');
  });

  it.each([
    ['paths outside variables', { '1': ['query'] }],
    ['a path to a non-null value', { '1': ['variables.l'] }],
    ['a missing path', { '1': ['variables.nope'] }],
    ['an index out of range', { '1': ['variables.l.2'] }],
    ['a non-canonical index', { '1': ['variables.l.01'] }],
    ['an empty path list', { '1': [] }],
    ['a non-array entry', { '1': 'variables.f' }],
    ['a slot mapped twice', { '1': ['variables.f'], '2': ['variables.f'] }],
  ])('400 for %s', (_why, map) => {
    try {
      applyMap(ops(), map, 10);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(MapError);
      expect((err as MapError).status).toBe(400);
    }
  });

  it('400 when map is not an object', () => {
    for (const m of [null, [], 'x', 1]) expect(() => applyMap(ops(), m, 10)).toThrow(MapError);
  });

  it('413 for more files than allowed', () => {
    try {
      applyMap(ops(), { '1': ['variables.f'], '2': ['variables.l.0'] }, 1);
      throw new Error('accepted');
    } catch (err) {
      expect((err as MapError).status).toBe(413);
    }
  });
});
