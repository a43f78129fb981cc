/**
 * Helpers of the GraphQL integration tests: real HTTP against a real app (test/helpers/server) and a
 * REST client for the parity tests. Test data comes from test/helpers/factories.
 */
import type { TestServer } from '../../helpers/server';

export interface GqlError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; field?: string; http?: { status?: number }; [k: string]: unknown };
}

export interface GqlResponse<D = any> {
  status: number;
  headers: Headers;
  body: { data?: D | null; errors?: GqlError[] };
}

export async function gql<D = any>(
  s: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
  headers: Record<string, string> = {},
): Promise<GqlResponse<D>> {
  const res = await fetch(`${s.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  let body: GqlResponse<D>['body'];
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 300)}`);
  }
  return { status: res.status, headers: res.headers, body };
}

/** The data of a successful operation; fails the test with the errors otherwise. */
export async function ok<D = any>(
  s: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<D> {
  const r = await gql<D>(s, query, variables, token);
  if (r.body.errors?.length || r.status !== 200)
    throw new Error(`GraphQL failed (${r.status}): ${JSON.stringify(r.body.errors)}`);
  return r.body.data as D;
}

/** The first error of an operation that must fail. */
export async function fails(
  s: TestServer,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<GqlError & { status: number; data: unknown }> {
  const r = await gql(s, query, variables, token);
  const e = r.body.errors?.[0];
  if (!e) throw new Error(`expected an error, got ${JSON.stringify(r.body.data)}`);
  return { ...e, status: r.status, data: r.body.data };
}

export async function rest(s: TestServer, path: string, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/api/beta${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: await res.json() };
}
