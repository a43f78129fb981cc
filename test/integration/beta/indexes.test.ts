/**
 * Every query the /api/beta listings and feeds run has an index. The test records the commands
 * the app really sends while exercising each endpoint (driver command monitoring) and checks each
 * filter/sort against the collection's indexes: equality fields form an index prefix and the sort
 * continues it. On MongoDB it also asks `explain` and refuses collection scans and in-memory
 * sorts. (FerretDB's SQLite backend plans its own way, so explain is only reported there.)
 */
import { BetaClient } from '../../helpers/beta-client';
import { Factory } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';
import { ANONYMOUS } from '../../../src/core/actor';
import { SYSTEM } from '../../../src/discussion';

let s: TestServer;
let api: BetaClient;
const seen: { collection: string; filter: Record<string, unknown>; sort?: Record<string, number>; command: string }[] =
  [];

type IndexKey = [string, number][];

/** Top-level equality (or $in) fields of a filter, looking through $and but not into $or. */
function equalityFields(filter: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and')
      for (const part of v as Record<string, unknown>[]) for (const f of equalityFields(part)) out.add(f);
    else if (k.startsWith('$')) continue;
    else if (v === null || typeof v !== 'object' || v instanceof Date || Array.isArray(v) || '$in' in (v as object))
      out.add(k);
  }
  return out;
}

/** Top-level fields (through $and) compared only with $gt/$gte/$lt/$lte: a range an index can scan. */
function rangeFields(filter: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and') for (const part of v as Record<string, unknown>[]) for (const f of rangeFields(part)) out.add(f);
    else if (!k.startsWith('$') && v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v)) {
      const ops = Object.keys(v as object);
      if (ops.length > 0 && ops.every((op) => ['$gt', '$gte', '$lt', '$lte'].includes(op))) out.add(k);
    }
  }
  return out;
}

function supported(indexes: IndexKey[], filter: Record<string, unknown>, sort?: Record<string, number>): boolean {
  const eq = equalityFields(filter);
  const ranges = rangeFields(filter);
  if (eq.has('_id') && !sort) return true;
  const sortKeys = Object.entries(sort ?? {}).filter(([k]) => !eq.has(k));
  return indexes.some((key) => {
    let i = 0;
    while (i < key.length && eq.has(key[i]![0])) i++;
    // After the equality prefix, the index continues with the sort, or (unsorted, or sorted on
    // that same field) with the field of a range condition.
    const next = key[i]?.[0];
    const rangeNext = next !== undefined && ranges.has(next) && (sortKeys.length === 0 || sortKeys[0]![0] === next);
    if (i === 0 && !rangeNext && !(sortKeys.length > 0 && key[0]![0] === sortKeys[0]![0])) return false;
    if (sortKeys.length === 0) return true;
    const rest = key.slice(i, i + sortKeys.length);
    if (rest.length < sortKeys.length) return false;
    const same = rest.every(([k, d], j) => k === sortKeys[j]![0] && d === sortKeys[j]![1]);
    const reversed = rest.every(([k, d], j) => k === sortKeys[j]![0] && d === -sortKeys[j]![1]);
    return same || reversed;
  });
}

/** The driver sends sorts as a Map (key order matters); empty means none. */
function plainSort(sort: unknown): Record<string, number> | undefined {
  const entries =
    sort instanceof Map ? [...sort.entries()] : sort && typeof sort === 'object' ? Object.entries(sort) : [];
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

beforeAll(async () => {
  s = await startTestServer();
  api = new BetaClient(s.url);
  const f = new Factory(s);
  const alice = await f.user('alice');
  const bob = await f.user('bob');
  const t = await f.topic(alice, { tags: ['a.b'] });
  const c = await f.comment(bob, t);
  await f.comment(alice, t, { parent: c });
  await f.label(alice, c, 'noise');
  await f.voteTopic(bob, t);
  await f.d.ignores.ignore(bob.actor, (await f.topic(alice)).id36);
  await f.topic(alice, { group: 'test.sub' });
  const token = await bob.tokenNow();

  const listener = (commandName: string, cmd: Record<string, unknown>) => {
    const collection = String(cmd[commandName]);
    if (commandName === 'find')
      seen.push({
        command: 'find',
        collection,
        filter: (cmd.filter ?? {}) as Record<string, unknown>,
        sort: plainSort(cmd.sort),
      });
    else if (commandName === 'findAndModify')
      seen.push({
        command: 'findAndModify',
        collection,
        filter: (cmd.query ?? {}) as Record<string, unknown>,
        sort: plainSort(cmd.sort),
      });
    else if (commandName === 'aggregate') {
      // countDocuments: [{ $match }, { $group }]
      const match = (cmd.pipeline as Record<string, unknown>[] | undefined)?.[0]?.$match;
      if (match) seen.push({ command: 'aggregate', collection, filter: match as Record<string, unknown> });
    } else if (commandName === 'update' || commandName === 'delete') {
      for (const u of cmd[commandName === 'update' ? 'updates' : 'deletes'] as { q: Record<string, unknown> }[])
        seen.push({ command: commandName, collection, filter: u.q });
    }
  };
  const unwatch = s.agora.db.watchCommands(listener);
  try {
    for (const auth of [undefined, token]) {
      for (const order of ['activity', 'votes', 'comments', 'new', 'all_activity']) {
        await api.get(`/topics?order=${order}&limit=1`, { token: auth });
        await api.get(`/topics?order=${order}&tag=a&period=4h&after=${t.id36}`, { token: auth });
        await api.get(`/topics?order=${order}&before=${t.id36}`, { token: auth });
        // The group filter (GraphQL's topics(group:), no REST parameter): one path, and a group with its subgroups.
        const actor = auth ? bob.actor : ANONYMOUS;
        await f.d.topics.list(actor, { order, group: 'test.sub', limit: 1 });
        await f.d.topics.list(actor, { order, group: 'test', tag: 'a', period: '4h', after: t.id36 });
        await f.d.topics.list(actor, { order, group: '~test', before: t.id36 });
      }
      await api.get(`/topic/${t.id36}`, { token: auth });
      for (const q of ['', `?after=t-${t.id36}`, `?before=c-${c.id36}`])
        await api.get(`/user/alice${q}`, { token: auth });
      await api.get(`/user/bob/comments?after=${c.id36}`, { token: auth });
      await api.get(`/user/alice/topics?before=${t.id36}`, { token: auth });
    }
    await api.post('/login', { username: 'bob', password: 'wrong password' });
    await f.voteComment(alice, c);
    // Writes that move counts (count.service.ts; no recount, so labels are only inserted and deleted): a topic vote,
    // a comment, a label, a removal.
    const other = await f.topic(bob);
    await f.voteTopic(alice, other);
    const c2 = await f.comment(alice, other);
    await f.label(bob, c2, 'joke');
    await f.d.comments.remove(SYSTEM, c2.id36);
    // All their live events are written (src/events/event-writer.ts).
    await s.agora.eventsWritten();
  } finally {
    unwatch();
  }
});
afterAll(async () => {
  await s?.close();
});

it('captured the queries of every endpoint', () => {
  const collections = new Set(seen.map((q) => q.collection));
  for (const name of ['users', 'groups', 'topics', 'comments', 'marks', 'rate_limit_attempts', 'discussion_counters'])
    expect(collections).toContain(name);
  // No endpoint and no write counts documents (countDocuments is an aggregate): counts are never recounted there.
  expect(seen.filter((q) => q.command === 'aggregate').map((q) => q.collection)).toEqual([]);
  expect(seen.some((q) => q.collection === 'topics' && JSON.stringify(q.filter).includes('"groupPath":{"$in"'))).toBe(
    true,
  );
  // Sorts arrive as Maps from the driver; they must be read, or the check below would ignore them.
  expect(seen.some((q) => q.collection === 'topics' && q.sort?.lastInterestingActivityAt === -1)).toBe(true);
});

it('serves every filter and sort from an index', async () => {
  const db = s.agora.db.conn.db!;
  const cache = new Map<string, IndexKey[]>();
  const unsupported: string[] = [];
  for (const q of seen) {
    if (!cache.has(q.collection)) {
      const idx = await db.collection(q.collection).indexes();
      cache.set(
        q.collection,
        idx.map((i) => Object.entries(i.key) as IndexKey),
      );
    }
    if (!supported(cache.get(q.collection)!, q.filter, q.sort))
      unsupported.push(`${q.command} ${q.collection} ${JSON.stringify(q.filter)} sort ${JSON.stringify(q.sort ?? {})}`);
  }
  expect(unsupported).toEqual([]);
});

it('uses index scans without in-memory sorts on MongoDB (explain)', async () => {
  const db = s.agora.db.conn.db!;
  const kind = process.env.AGORA_TEST_DATABASE_KIND ?? 'external';
  const finds = seen.filter((q) => q.command === 'find');
  for (const q of finds) {
    const plan = await db
      .collection(q.collection)
      .find(q.filter, { sort: q.sort as never })
      .explain();
    if (kind === 'ferretdb') {
      expect(plan.ok).toBe(1);
      continue;
    }
    const text = JSON.stringify(plan.queryPlanner?.winningPlan ?? plan);
    expect([q.collection, text.includes('COLLSCAN')]).toEqual([q.collection, false]);
    expect([q.collection, /"stage":"SORT"/.test(text)]).toEqual([q.collection, false]);
  }
});
