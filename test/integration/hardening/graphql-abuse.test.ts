/**
 * GraphQL abuse: documents built to make the server work hard (hundreds of aliases, repeated
 * fields, fragment fans and cycles, thousands of directives, deep introspection, huge documents
 * and variables, batches) are refused quickly with a 4xx and a GraphQL error code, never a 5xx,
 * and the server answers normal requests right after. Time bounds are generous (a loaded CI
 * machine), but each of these took seconds to minutes before the limits existed.
 */
import { getIntrospectionQuery } from 'graphql';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ GRAPHQL_BATCHING: 'true', BODY_LIMIT: String(4 * 1024 * 1024) });
});
afterAll(async () => s?.close());

// Generous: CI runs two test workers on two cores; the same requests take ~0.1 s on an idle machine.
const QUICK_MS = 10_000;

interface Answer {
  status: number;
  ms: number;
  body: any;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const ms = Date.now() - started;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 200)}`);
  }
  return { status: res.status, ms, body: parsed };
}

/** A 4xx answered quickly with GraphQL errors that carry a code. */
function expectRefused(a: Answer, code: string | RegExp, message?: RegExp): void {
  expect(a.status).toBeGreaterThanOrEqual(400);
  expect(a.status).toBeLessThan(500);
  expect(a.ms).toBeLessThan(QUICK_MS);
  const errors = (Array.isArray(a.body) ? a.body.flatMap((r: any) => r.errors ?? []) : a.body.errors) as {
    message: string;
    extensions?: { code?: string };
  }[];
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.length).toBeLessThanOrEqual(101);
  for (const e of errors) expect(e.extensions?.code).toEqual(expect.stringMatching(code));
  if (message) expect(errors.map((e) => e.message).join('\n')).toMatch(message);
}

afterEach(async () => {
  // The server is still responsive after each attack.
  const a = await post({ query: '{ serverInfo { version } }' });
  expect(a.status).toBe(200);
  expect(a.ms).toBeLessThan(QUICK_MS);
});

describe('aliases and repeated fields', () => {
  it('hundreds of aliases are refused', async () => {
    const q = `{ ${Array.from({ length: 500 }, (_, i) => `a${i}: serverInfo { version }`).join(' ')} }`;
    expectRefused(await post({ query: q }), 'GRAPHQL_VALIDATION_FAILED', /too many aliases/);
  });

  it('a hundred aliases of a cheap field still run', async () => {
    const q = `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const a = await post({ query: q });
    expect(a.status).toBe(200);
    expect(Object.keys(a.body.data)).toHaveLength(100);
  });

  it('aliases of an expensive field are refused by the cost limit', async () => {
    // Page sizes multiply (a page of topics, each author's comments): the cost does not depend on the data.
    const aliases = Array.from(
      { length: 50 },
      (_, i) => `a${i}: topics(first: 100) { edges { node { id author { comments(first: 100) { nodes { id } } } } } }`,
    );
    const q = `{ ${aliases.join(' ')} }`;
    expectRefused(await post({ query: q }), 'GRAPHQL_VALIDATION_FAILED', /too expensive/);
  });

  it('thousands of copies of one field (quadratic to validate) are refused', async () => {
    expectRefused(
      await post({ query: `{ ${'__typename '.repeat(9000)} }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /too many selections/,
    );
    expectRefused(
      await post({ query: `{ ${'serverInfo { version } '.repeat(2400)} }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /too many selections/,
    );
  });

  it('hundreds of copies of one field with arguments (quadratic to compare) are refused at once', async () => {
    // Within every size limit (a 20 KB body, 1,980 selections): graphql-js spent 9–20 s comparing the
    // copies pairwise on the event loop. A trailing space makes each request a new document.
    const node = `query($x: ID!) { ${'node(id: $x) { id } '.repeat(990)} }`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post({ query: node + ' '.repeat(i), variables: { x: '1' } })),
    );
    for (const a of answers) expectRefused(a, 'GRAPHQL_VALIDATION_FAILED', /"node" is repeated too often/);
    expectRefused(
      await post({ query: `{ ${'serverInfo { version } '.repeat(999)} }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /"serverInfo" is repeated too often/,
    );
  });

  it('the repeated-key bound and the cost limit hold over GET and in each operation of a batch', async () => {
    const repeated = `query($x: ID!) { ${'node(id: $x) { id } '.repeat(6)} }`;
    // Page sizes multiply (a page of topics, each author's comments): the cost does not depend on the data.
    const aliases = Array.from(
      { length: 50 },
      (_, i) => `a${i}: topics(first: 100) { edges { node { id author { comments(first: 100) { nodes { id } } } } } }`,
    );
    const expensive = `{ ${aliases.join(' ')} }`;
    for (const [query, message] of [
      [repeated, /"node" is repeated too often/],
      [expensive, /too expensive/],
    ] as const) {
      const started = Date.now();
      const res = await fetch(
        `${s.url}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent('{"x":"1"}')}`,
        { headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } },
      );
      const body = (await res.json()) as any;
      expectRefused({ status: res.status, ms: Date.now() - started, body }, 'GRAPHQL_VALIDATION_FAILED', message);
    }
    const batch = await post([
      { query: '{ __typename }' },
      { query: repeated, variables: { x: '1' } },
      { query: expensive },
    ]);
    expect(batch.body[0]).toEqual({ data: { __typename: 'Query' } });
    expect(batch.body[1].errors[0].message).toMatch(/"node" is repeated too often/);
    expect(batch.body[2].errors[0].message).toMatch(/too expensive/);
  });

  it('a few copies of a field, and many of a plain leaf, still run', async () => {
    const a = await post({
      query: `{ ${'serverInfo { version } '.repeat(5)} topics(first: 1) { nodes { ${'id '.repeat(50)} } } }`,
    });
    expect(a.status).toBe(200);
    expect(a.body.data.serverInfo.version).toEqual(expect.any(String));
  });

  it('thousands of aliased logins are refused before any password is hashed', async () => {
    const logins = Array.from(
      { length: 300 },
      (_, i) => `l${i}: login(username: "alice", password: "x${i}") { token }`,
    );
    const q = `mutation { ${logins.join(' ')} }`;
    expectRefused(await post({ query: q }), 'GRAPHQL_VALIDATION_FAILED', /too many aliases/);
  });
});

describe('fragments', () => {
  it('a fan of fragments (each spreading the next twice: 2^40 paths) is refused at once', async () => {
    let frags = '';
    for (let i = 0; i < 40; i++) frags += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} } `;
    frags += 'fragment F40 on Query { __typename }';
    expectRefused(await post({ query: `{ ...F0 } ${frags}` }), 'GRAPHQL_VALIDATION_FAILED', /too many selections/);
  });

  it('a fan that stays small passes the size limit (the expansion is measured, not walked)', async () => {
    let frags = '';
    for (let i = 0; i < 8; i++) frags += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} } `;
    frags += 'fragment F8 on Query { __typename }';
    const a = await post({ query: `{ ...F0 } ${frags}` });
    expect(a.status).toBe(200);
    expect(a.body.data).toEqual({ __typename: 'Query' });
  });

  it('fragment cycles are refused', async () => {
    expectRefused(
      await post({ query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }' }),
      'GRAPHQL_VALIDATION_FAILED',
      /Cannot spread fragment/,
    );
    expectRefused(
      await post({ query: '{ ...A } fragment A on Query { serverInfo { version } ...A }' }),
      'GRAPHQL_VALIDATION_FAILED',
    );
  });

  it('deep nesting through fragments is refused by the depth limit', async () => {
    let frags = '';
    for (let i = 0; i < 30; i++) frags += `fragment C${i} on Comment { children { ...C${i + 1} } } `;
    frags += 'fragment C30 on Comment { id }';
    expectRefused(
      await post({ query: `{ topic(id: "1") { comments { ...C0 } } } ${frags}` }),
      'GRAPHQL_VALIDATION_FAILED',
      /too deep/,
    );
  });
});

describe('directives', () => {
  it('thousands of repeated directives are refused', async () => {
    expectRefused(
      await post({ query: `{ __typename ${'@include(if: true) '.repeat(1200)} }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /too many directives/,
    );
    expectRefused(
      await post({ query: `{ __typename ${'@include(if: true) '.repeat(5000)} }` }),
      'GRAPHQL_PARSE_FAILED',
      /tokens/,
    );
    expectRefused(
      await post({ query: `{ __typename ${'@skip(if: false) '.repeat(60)} }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /too many directives/,
    );
  });

  it('unknown directives by the thousand are refused quickly too', async () => {
    expectRefused(
      await post({ query: `{ __typename ${'@a '.repeat(4000)} }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /too many directives/,
    );
    expectRefused(await post({ query: `{ __typename ${'@a '.repeat(20000)} }` }), 'GRAPHQL_PARSE_FAILED');
  });
});

describe('introspection', () => {
  it("GraphiQL's own introspection query runs", async () => {
    const a = await post({
      query: getIntrospectionQuery({
        descriptions: true,
        inputValueDeprecation: true,
        directiveIsRepeatable: true,
        specifiedByUrl: true,
        schemaDescription: true,
      }),
    });
    expect(a.status).toBe(200);
    expect(a.body.data.__schema.types.length).toBeGreaterThan(10);
  });

  it('introspection lists nested beyond what introspection needs are refused', async () => {
    const nest = (n: number): string => (n === 0 ? 'name' : `name fields { type { ${nest(n - 1)} } }`);
    expectRefused(
      await post({ query: `{ __schema { types { ${nest(5)} } } }` }),
      'GRAPHQL_VALIDATION_FAILED',
      /Introspection is nested too deep/,
    );
    expectRefused(
      await post({
        query:
          `{ __type(name: "Query") { fields { type { fields { type { fields { type { interfaces { ` +
          `name } } } } } } } } }`,
      }),
      'GRAPHQL_VALIDATION_FAILED',
      /nested too deep/,
    );
    const viaFragment =
      `{ __schema { types { ...T } } } fragment T on __Type { fields { type { fields { ` +
      `type { possibleTypes { name } } } } } }`;
    expectRefused(await post({ query: viaFragment }), 'GRAPHQL_VALIDATION_FAILED', /nested too deep/);
  });

  it('one __schema per operation: aliases or fragments repeating it are refused, not run', async () => {
    const full = getIntrospectionQuery();
    const body = full.slice(full.indexOf('__schema'), full.lastIndexOf('}', full.indexOf('fragment')));
    const fragments = full.slice(full.indexOf('fragment'));
    const aliases = `query { ${[1, 2, 3].map((i) => `s${i}: ${body}`).join(' ')} } ${fragments}`;
    expectRefused(await post({ query: aliases }), 'GRAPHQL_VALIDATION_FAILED', /3 __schema fields/);
    const viaFragment = '{ ...A ...A a: __typename } fragment A on Query { x: __schema { queryType { name } } }';
    expectRefused(await post({ query: viaFragment }), 'GRAPHQL_VALIDATION_FAILED', /2 __schema fields/);
    // One per operation is fine, in each operation of a document.
    const two = await post({
      query: 'query A { __schema { queryType { name } } } query B { __schema { queryType { name } } }',
      operationName: 'B',
    });
    expect(two.status).toBe(200);
    expect(two.body.data.__schema.queryType.name).toBe('Query');
  });

  it('deep ofType chains are refused by the depth limit, not run', async () => {
    const q = `{ __schema { types { ${'ofType { '.repeat(40)}name${' }'.repeat(40)} } } }`;
    expectRefused(await post({ query: q }), 'GRAPHQL_VALIDATION_FAILED', /too deep/);
  });
});

describe('size', () => {
  it('a document with too many tokens is refused by the parser', async () => {
    expectRefused(
      await post({ query: `{ __typename } ${'query Q { __typename } '.repeat(3000)}` }),
      'GRAPHQL_PARSE_FAILED',
      /tokens/,
    );
  });

  it('a document nested thousands of levels deep is refused, not a stack overflow', async () => {
    expectRefused(
      await post({ query: `{ ${'a { '.repeat(4000)}b${' }'.repeat(4000)} }` }),
      /GRAPHQL_PARSE_FAILED|GRAPHQL_VALIDATION_FAILED/,
    );
    expectRefused(
      await post({ query: `query($v: [[String]] = ${'['.repeat(3000)}${']'.repeat(3000)}) { __typename }` }),
      /GRAPHQL_PARSE_FAILED|GRAPHQL_VALIDATION_FAILED/,
    );
  });

  it('oversized and deeply nested variables are refused (413 or BAD_USER_INPUT), never a 5xx', async () => {
    const q = 'query($x: String!) { user(username: $x) { username } }';
    const big = await post({ query: q, variables: { x: 'x'.repeat(5 * 1024 * 1024) } });
    expect(big.status).toBe(413);
    const nested = `{"query":${JSON.stringify(q)},"variables":{"x":${'['.repeat(50000)}${']'.repeat(50000)}}}`;
    const a = await post(nested);
    expectRefused(a, 'BAD_USER_INPUT');
    expectRefused(
      await post({ query: q, variables: { x: Array.from({ length: 100000 }, (_, i) => `v${i}`) } }),
      'BAD_USER_INPUT',
    );
    const wide = Object.fromEntries(Array.from({ length: 50000 }, (_, i) => [`k${i}`, { $ne: null }]));
    expectRefused(await post({ query: q, variables: { x: wide } }), 'BAD_USER_INPUT');
  });

  it('variables with objects where strings are expected are BAD_USER_INPUT', async () => {
    for (const v of [{ $ne: null }, { $regex: '.*' }, ['a'], 1, true]) {
      expectRefused(
        await post({ query: 'query($u: String!) { user(username: $u) { username } }', variables: { u: v } }),
        'BAD_USER_INPUT',
      );
    }
  });
});

describe('batches', () => {
  it('a batch over the limit is refused as a whole', async () => {
    const batch = Array.from({ length: 1000 }, () => ({ query: '{ __typename }' }));
    const a = await post(batch);
    expect(a.status).toBe(400);
    expect(a.ms).toBeLessThan(QUICK_MS);
    expect(a.body.errors[0].message).toMatch(/Too many operations in one batch/);
    expect(a.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('a batch within the limit runs, each operation under its own limits', async () => {
    const a = await post([{ query: '{ __typename }' }, { query: `{ ${'__typename '.repeat(5000)} }` }]);
    expect(a.ms).toBeLessThan(QUICK_MS);
    expect(a.body[0]).toEqual({ data: { __typename: 'Query' } });
    expect(a.body[1].errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('a multipart batch over the limit is refused too', async () => {
    const form = new FormData();
    form.append('operations', JSON.stringify(Array.from({ length: 20 }, () => ({ query: '{ __typename }' }))));
    form.append('map', '{}');
    const started = Date.now();
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'apollo-require-preflight': 'true' },
      body: form,
    });
    expect(Date.now() - started).toBeLessThan(QUICK_MS);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any[];
    expect(body[0].errors[0].message).toMatch(/Too many operations in one batch/);
  });
});
