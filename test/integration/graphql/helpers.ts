/**
 * Helpers of the GraphQL integration tests: real HTTP against a real app (test/helpers/server),
 * factories that go through the discussion services (never through the code under test), and a
 * REST client for the parity tests.
 */
import { SYSTEM } from '../../../src/discussion/services';
import type { DiscussionServiceSet } from '../../../src/discussion/services';
import type { Actor } from '../../../src/core/actor';
import type { TopicView, CommentView, UserView } from '../../../src/discussion/views';
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

export function services(s: TestServer): DiscussionServiceSet {
  return s.agora.services.discussion as unknown as DiscussionServiceSet;
}

export interface TestUser {
  user: UserView;
  actor: Actor;
  token: string;
  password: string;
}

export const PASSWORD = 'correct horse battery';

/** A user created by the system (as the CLI does) with a token issued directly (no login attempt counted). */
export async function makeUser(s: TestServer, username: string, opts: { admin?: boolean } = {}): Promise<TestUser> {
  const ds = services(s);
  const user = await ds.users.create(SYSTEM, { username, password: PASSWORD, isAdmin: opts.admin === true });
  const actor: Actor = { kind: 'user', userId: user.id, username: user.username, isAdmin: user.isAdmin };
  const { token } = await ds.auth.issueToken(actor);
  return { user, actor, token, password: PASSWORD };
}

export async function makeGroup(s: TestServer, path: string, description = `The ${path} group`): Promise<void> {
  await services(s).groups.create(SYSTEM, { path, description });
}

export async function makeTopic(
  s: TestServer,
  by: TestUser,
  input: Partial<{ group: string; title: string; markdown: string; link: string; tags: string[] }> = {},
): Promise<TopicView> {
  return services(s).topics.post(by.actor, {
    group: input.group ?? 'tech',
    title: input.title ?? 'A topic',
    markdown: input.markdown ?? 'Some *text* here',
    link: input.link ?? null,
    tags: input.tags ?? [],
  });
}

export async function makeComment(
  s: TestServer,
  by: TestUser,
  topic: TopicView | string,
  markdown = 'A comment',
  parent?: CommentView | string,
): Promise<CommentView> {
  const topicId = typeof topic === 'string' ? topic : topic.id36;
  const parentId = parent === undefined ? null : typeof parent === 'string' ? parent : parent.id36;
  return services(s).comments.post(by.actor, { topicId, parentId, markdown });
}

/** Sets the domain clock (null: real time again). */
export function setClock(s: TestServer, at: Date | string | null): void {
  s.clock.set(at === null ? null : new Date(at));
}
