/**
 * Relay as a front end uses it: relay-compiler (its native binary, from npm) compiles fragments
 * with @refetchable on Topic, Comment and User against the committed schema.graphql, and
 * relay-runtime normalises the server's answers to the generated queries in one store. Relay keys
 * records by `id` alone: any id shared by two types is reported (console.error) and merged.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Environment, fetchQuery, Network, RecordSource, Store } from 'relay-runtime';
import type { ConcreteRequest, GraphQLResponse } from 'relay-runtime';
import { fromGlobalId } from '../../../src/graphql/node/global-id';
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, TestUser } from '../../helpers/factories';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let dir: string;
const printed: unknown[][] = [];
const spies: jest.SpyInstance[] = [];

function compile(): string {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-relay-'));
  fs.mkdirSync(path.join(tmp, 'src'));
  fs.copyFileSync(path.join(__dirname, 'relay', 'AgoraRelay.js'), path.join(tmp, 'src', 'AgoraRelay.js'));
  const config = {
    src: './src',
    schema: path.resolve(__dirname, '..', '..', '..', 'schema.graphql'),
    language: 'javascript',
  };
  fs.writeFileSync(path.join(tmp, 'relay.config.json'), JSON.stringify(config));
  const binary = require('relay-compiler') as string;
  const r = spawnSync(binary, [], { cwd: tmp, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`relay-compiler failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return path.join(tmp, 'src', '__generated__');
}

function artifact(name: string): ConcreteRequest {
  // Relay 21 writes ES modules (`export default node`), which Jest's transform hands over as `default`.
  const mod = require(path.join(dir, `${name}.graphql.js`)) as { default?: ConcreteRequest } & ConcreteRequest;
  return mod.default ?? mod;
}

function environment(token?: string): Environment {
  const network = Network.create(async (params, variables) => {
    const res = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: params.text, variables }),
    });
    const body = (await res.json()) as GraphQLResponse & { errors?: unknown };
    if (res.status !== 200 || body.errors)
      throw new Error(`${params.name}: ${res.status} ${JSON.stringify(body.errors)}`);
    return body;
  });
  return new Environment({ network, store: new Store(new RecordSource()) });
}

beforeAll(async () => {
  dir = compile();
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  await f.group('tech');
  // Topic 1 and Comment 1, Topic 2 and Comment 2 … exist side by side (ids are per collection).
  for (let i = 0; i < 3; i++) {
    const t = await f.topic(i % 2 ? bob : alice, { title: `Topic ${i}` });
    const top = await f.comment(bob, t, { markdown: `top ${i}` });
    const reply = await f.comment(alice, t, { markdown: `reply ${i}`, parent: top });
    await f.comment(bob, t, { markdown: `deeper ${i}`, parent: reply });
  }
  for (const method of ['warn', 'error'] as const) {
    spies.push(
      jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push([method, ...args])),
    );
  }
}, 120_000);
afterAll(async () => {
  for (const spy of spies) spy.mockRestore();
  if (dir) fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  await s?.close();
});

it('relay-compiler compiles @refetchable fragments on Topic, Comment and User (node(id:) refetch queries)', () => {
  for (const name of ['AgoraRelayTopicRefetchQuery', 'AgoraRelayCommentRefetchQuery', 'AgoraRelayUserRefetchQuery']) {
    const text = artifact(name).params.text!;
    expect(text).toMatch(/node\(id: \$id\)/);
  }
});

for (const viewer of ['anonymous', 'logged in'] as const) {
  it(`relay-runtime normalises the listing, three trees, two users' feeds and the refetch queries in one store \
without a conflict (${viewer})`, async () => {
    const env = environment(viewer === 'anonymous' ? undefined : bob.token);
    const listing = (await fetchQuery(env, artifact('AgoraRelayListingQuery'), {}).toPromise()) as any;
    const topics = listing.topics.edges.map((e: any) => e.node);
    expect(topics).toHaveLength(3);
    for (const t of topics) await fetchQuery(env, artifact('AgoraRelayTreeQuery'), { id: t.id }).toPromise();
    for (const username of ['alice', 'bob'])
      await fetchQuery(env, artifact('AgoraRelayUserQuery'), { username }).toPromise();

    const source = env.getStore().getSource();
    const records = source.getRecordIDs().filter((id) => !id.startsWith('client:'));
    const byType = new Map<string, number>();
    for (const id of records) {
      const typename = source.get(id)?.__typename as string;
      // Every server record is keyed by a global id naming its own type.
      expect([id, fromGlobalId(id)?.type]).toEqual([id, typename]);
      byType.set(typename, (byType.get(typename) ?? 0) + 1);
    }
    expect(Object.fromEntries(byType)).toEqual({ Topic: 3, Comment: 9, User: 2, Group: 1 });

    // Refetching each kind of record through node(id:) gives the values the store already holds.
    const comment = records.find((id) => source.get(id)?.__typename === 'Comment')!;
    const user = records.find((id) => source.get(id)?.__typename === 'User')!;
    const before = {
      topic: { ...source.get(topics[0].id) },
      comment: { ...source.get(comment) },
      user: { ...source.get(user) },
    };
    await fetchQuery(env, artifact('AgoraRelayTopicRefetchQuery'), { id: topics[0].id }).toPromise();
    await fetchQuery(env, artifact('AgoraRelayCommentRefetchQuery'), { id: comment }).toPromise();
    await fetchQuery(env, artifact('AgoraRelayUserRefetchQuery'), { id: user }).toPromise();
    const after = env.getStore().getSource();
    expect({
      topic: { ...after.get(topics[0].id) },
      comment: { ...after.get(comment) },
      user: { ...after.get(user) },
    }).toEqual(before);
    expect(printed).toEqual([]);
  });
}
