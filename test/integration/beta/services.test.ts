/**
 * The write-side use cases both front doors call (the GraphQL layer exposes them as mutations):
 * authorization and rules live in the services, so they are tested at that level, against the
 * real database.
 */
import type { Actor } from '../../../src/core/actor';
import { ANONYMOUS } from '../../../src/core/actor';
import { SYSTEM } from '../../../src/discussion';
import { PASSWORD, Factory, TestUser } from '../../helpers/factories';
import { startTestServer, TestServer } from '../../helpers/server';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeAll(async () => {
  s = await startTestServer({ REGISTRATION_OPEN: 'true' });
  f = new Factory(s);
  alice = await f.user('alice');
  bob = await f.user('bob');
  admin = await f.user('root', { admin: true });
});
afterAll(async () => {
  await s?.close();
});

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { code?: string; reason?: string }) => `${e.code}${e.reason ? `:${e.reason}` : ''}`,
  );

describe('accounts (3.6)', () => {
  it('registers valid usernames, unique case-insensitively, stored as given', async () => {
    const r = await f.d.users.register(ANONYMOUS, { username: 'New-User_1', password: 'long enough' });
    expect(r.user.username).toBe('New-User_1');
    expect(await code(f.d.users.register(ANONYMOUS, { username: 'new-user_1', password: 'long enough' }))).toBe(
      'CONFLICT:USERNAME_TAKEN',
    );
    expect((await f.d.auth.actorForToken(r.token)).kind).toBe('user');
  });

  it.each(['ab', 'a'.repeat(21), '-ab', 'ab-', 'a--b', 'a_-b', 'a b', 'ümlaut', '_abc'])(
    'refuses username %p',
    async (username) => {
      expect(await code(f.d.users.create(SYSTEM, { username, password: 'long enough' }))).toBe('BAD_USER_INPUT');
    },
  );

  it.each(['abc', 'a'.repeat(20), 'A-b_c', 'x1-2_3y'])('accepts username %p', async (username) => {
    expect(await code(f.d.users.create(SYSTEM, { username, password: 'long enough' }))).toBe('ok');
  });

  it('needs passwords of at least 8 characters and stores only scrypt hashes', async () => {
    expect(await code(f.d.users.create(SYSTEM, { username: 'shortpw', password: 'seven77' }))).toBe('BAD_USER_INPUT');
    await f.d.users.create(SYSTEM, { username: 'hashed', password: 'eight888' });
    const doc = await s.agora.db.conn.collection('users').findOne({ usernameLower: 'hashed' });
    expect(doc!.passwordHash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(JSON.stringify(doc)).not.toContain('eight888');
  });

  it('only admins and the system create accounts for others; registration can be closed', async () => {
    expect(await code(f.d.users.create(bob.actor, { username: 'byBob', password: 'long enough' }))).toBe(
      'FORBIDDEN:ADMIN_REQUIRED',
    );
    expect(await code(f.d.users.create(admin.actor, { username: 'byAdmin', password: 'long enough' }))).toBe('ok');
    const closed = await startTestServer({ REGISTRATION_OPEN: 'false' });
    try {
      expect(
        await code(
          closed.agora.services.discussion.users.register(ANONYMOUS, { username: 'someone', password: 'long enough' }),
        ),
      ).toBe('FORBIDDEN:REGISTRATION_CLOSED');
    } finally {
      await closed.close();
    }
  });

  it('bans and unbans through admins only', async () => {
    expect(await code(f.d.users.ban(bob.actor, 'alice'))).toBe('FORBIDDEN:ADMIN_REQUIRED');
    expect(await code(f.d.users.ban(ANONYMOUS, 'alice'))).toBe('UNAUTHENTICATED:AUTHENTICATION_REQUIRED');
    expect(await code(f.d.users.ban(admin.actor, 'nobody'))).toBe('NOT_FOUND:USER_NOT_FOUND');
  });

  it('changes passwords only with the current one', async () => {
    const u = await f.user('changer');
    // A wrong current password is bad input (400), not a bad token (401): the caller stays logged in.
    expect(
      await code(f.d.auth.changePassword(u.actor, { currentPassword: 'wrong', newPassword: 'brand new pw' })),
    ).toBe('BAD_USER_INPUT:WRONG_PASSWORD');
    const both = await f.d.auth
      .changePassword(u.actor, { currentPassword: 'wrong', newPassword: 'short' })
      .catch((e) => e);
    expect(both.issues.map((i: { field: string }) => i.field)).toEqual(['currentPassword', 'newPassword']);
    expect(await code(f.d.auth.changePassword(u.actor, { currentPassword: PASSWORD, newPassword: 'short' }))).toBe(
      'BAD_USER_INPUT',
    );
    expect(await code(f.d.users.me(u.actor))).toBe('ok');
    expect(await code(f.d.users.deleteAccount(u.actor, 'wrong'))).toBe('BAD_USER_INPUT:WRONG_PASSWORD');
    expect(
      await code(f.d.auth.changePassword(u.actor, { currentPassword: PASSWORD, newPassword: 'brand new pw' })),
    ).toBe('ok');
  });
});

describe('groups and topics', () => {
  it('creates groups as admin only, with valid paths, once', async () => {
    expect(await code(f.d.groups.create(bob.actor, { path: 'x' }))).toBe('FORBIDDEN:ADMIN_REQUIRED');
    expect((await f.d.groups.create(admin.actor, { path: '~Games.Tabletop', description: 'Board games' })).path).toBe(
      'games.tabletop',
    );
    expect(await code(f.d.groups.create(SYSTEM, { path: 'games.tabletop' }))).toBe('CONFLICT:GROUP_EXISTS');
    for (const path of ['', 'a..b', '.a', 'a b', 'a-b', 'a.', '_a'])
      expect(await code(f.d.groups.create(SYSTEM, { path }))).toBe('BAD_USER_INPUT');
  });

  it('posts topics only when logged in, in an existing group, with valid input', async () => {
    await f.group('tech');
    expect(await code(f.d.topics.post(ANONYMOUS, { group: 'tech', title: 'x' }))).toBe(
      'UNAUTHENTICATED:AUTHENTICATION_REQUIRED',
    );
    expect(await code(f.d.topics.post(alice.actor, { group: 'nope', title: 'x' }))).toBe('NOT_FOUND:GROUP_NOT_FOUND');
    expect(await code(f.d.topics.post(alice.actor, { group: 'tech', title: '  ' }))).toBe('BAD_USER_INPUT');
    // Only invisible characters (zero-width spaces, a Hangul filler): no title either.
    expect(await code(f.d.topics.post(alice.actor, { group: 'tech', title: '\u200B\u3164\u200B' }))).toBe(
      'BAD_USER_INPUT',
    );
    expect(await code(f.d.topics.post(alice.actor, { group: 'tech', title: 'x', link: 'javascript:alert(1)' }))).toBe(
      'BAD_USER_INPUT',
    );
    expect(await code(f.d.topics.post(alice.actor, { group: 'tech', title: 'x', tags: ['ok', 'c++'] }))).toBe(
      'BAD_USER_INPUT',
    );
    const t = await f.d.topics.post(alice.actor, {
      group: '~tech',
      title: ' Hi ',
      markdown: '<b>raw</b> [x](javascript:y)',
      tags: ['A_B.c'],
    });
    expect(t).toMatchObject({
      title: 'Hi',
      groupPath: 'tech',
      tags: ['a b.c'],
      textHtml: '<p>&lt;b&gt;raw&lt;/b&gt; [x](javascript:y)</p>',
    });
  });

  it('stores a link normalised (new URL(link).href), on post and on edit, as REST and GraphQL show it', async () => {
    await f.group('tech');
    const typed = 'HTTP://X.Example:80/a b/"><script>alert(1)</script>?q="x"#f';
    const t = await f.d.topics.post(alice.actor, { group: 'tech', title: 'A link', link: `  ${typed} ` });
    const href = 'http://x.example/a%20b/%22%3E%3Cscript%3Ealert(1)%3C/script%3E?q=%22x%22#f';
    expect(t.url).toBe(href);
    expect(href).toBe(new URL(typed).href);
    const rest = (await (await fetch(`${s.url}/api/beta/topic/${t.id36}`)).json()) as { topic: { url: string } };
    expect(rest.topic.url).toBe(href);
    const gql = await fetch(`${s.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ topic(id: "${t.id36}") { url } }` }),
    });
    expect(((await gql.json()) as { data: { topic: { url: string } } }).data.topic.url).toBe(href);
    const edited = await f.d.topics.edit(alice.actor, t.id36, { link: 'https://Example.ORG/<x>' });
    expect(edited.url).toBe('https://example.org/%3Cx%3E');
  });

  it('lets the author edit and delete, admins remove, restore, lock, mark official and retag', async () => {
    const t = await f.topic(alice, { title: 'Mine' });
    expect(await code(f.d.topics.edit(bob.actor, t.id36, { title: 'Hijack' }))).toBe('FORBIDDEN:NOT_AUTHOR');
    expect(await code(f.d.topics.edit(admin.actor, t.id36, { markdown: 'Admin text' }))).toBe('FORBIDDEN:NOT_AUTHOR');
    expect((await f.d.topics.edit(admin.actor, t.id36, { title: 'Retitled' })).title).toBe('Retitled');
    expect(await code(f.d.topics.delete(bob.actor, t.id36))).toBe('FORBIDDEN:NOT_AUTHOR');
    expect(await code(f.d.topics.remove(bob.actor, t.id36))).toBe('FORBIDDEN:ADMIN_REQUIRED');
    expect(await code(f.d.topics.setLocked(alice.actor, t.id36, true))).toBe('FORBIDDEN:ADMIN_REQUIRED');
    expect((await f.d.topics.setTags(alice.actor, t.id36, ['x.y'])).tags).toEqual(['x.y']);
    expect(await code(f.d.topics.setTags(bob.actor, t.id36, ['z']))).toBe('FORBIDDEN:NOT_AUTHOR');
    expect((await f.d.topics.setTags(admin.actor, t.id36, ['z'])).tags).toEqual(['z']);
    expect((await f.d.topics.setOfficial(admin.actor, t.id36, true)).official).toBe(true);
    expect((await f.d.topics.remove(admin.actor, t.id36)).isRemoved).toBe(true);
    expect(await code(f.d.topics.get(bob.actor, t.id36))).toBe('NOT_FOUND:TOPIC_NOT_FOUND');
    expect((await f.d.topics.get(alice.actor, t.id36)).isRemoved).toBe(true);
    expect((await f.d.topics.restore(admin.actor, t.id36)).isRemoved).toBe(false);
    await f.d.topics.delete(alice.actor, t.id36);
    expect(await code(f.d.topics.get(alice.actor, t.id36))).toBe('NOT_FOUND:TOPIC_NOT_FOUND');
    expect(await code(f.d.topics.restore(admin.actor, t.id36))).toBe('NOT_FOUND:TOPIC_NOT_FOUND');
  });
});

describe('comments', () => {
  it('replies at any depth, refuses locked topics (except admins) and foreign parents', async () => {
    const t = await f.topic(alice);
    let parent = await f.comment(bob, t);
    for (let i = 0; i < 30; i++) parent = await f.comment(i % 2 ? alice : bob, t, { parent });
    const other = await f.topic(alice);
    expect(
      await code(f.d.comments.post(bob.actor, { topicId: other.id36, parentId: parent.id36, markdown: 'x' })),
    ).toBe('NOT_FOUND:COMMENT_NOT_FOUND');
    expect(await code(f.d.comments.post(bob.actor, { topicId: t.id36, markdown: '   ' }))).toBe('BAD_USER_INPUT');
    expect(await code(f.d.comments.post(bob.actor, { topicId: t.id36, markdown: '\u2800\u200D' }))).toBe(
      'BAD_USER_INPUT',
    );
    await f.d.topics.setLocked(SYSTEM, t.id36, true);
    expect(await code(f.d.comments.post(bob.actor, { topicId: t.id36, markdown: 'x' }))).toBe('FORBIDDEN:TOPIC_LOCKED');
    // The deepest reply (the 31st) is alice's.
    expect(await code(f.d.comments.edit(alice.actor, parent.id36, 'changed'))).toBe('FORBIDDEN:TOPIC_LOCKED');
    expect(await code(f.d.comments.post(admin.actor, { topicId: t.id36, markdown: 'Locked by an admin.' }))).toBe('ok');
    // Votes and deletion stay possible on a locked topic.
    expect(await code(f.d.votes.vote(bob.actor, 'comment', parent.id36))).toBe('ok');
    expect(await code(f.d.comments.delete(alice.actor, parent.id36))).toBe('ok');
  });

  it('keeps comment_count right through delete, remove and restore in any order', async () => {
    const t = await f.topic(alice);
    const a = await f.comment(bob, t);
    const b = await f.comment(bob, t);
    const count = async () => (await f.d.topics.get(alice.actor, t.id36)).commentCount;
    expect(await count()).toBe(2);
    await f.d.comments.remove(SYSTEM, a.id36);
    await f.d.comments.remove(SYSTEM, a.id36);
    expect(await count()).toBe(1);
    await f.d.comments.restore(SYSTEM, a.id36);
    expect(await count()).toBe(2);
    await f.d.comments.remove(SYSTEM, b.id36);
    await f.d.comments.delete(bob.actor, a.id36);
    expect(await count()).toBe(0);
    await f.d.comments.restore(SYSTEM, b.id36);
    expect(await count()).toBe(1);
    expect(await code(f.d.comments.delete(alice.actor, b.id36))).toBe('FORBIDDEN:NOT_AUTHOR');
    expect(await code(f.d.comments.remove(bob.actor, b.id36))).toBe('FORBIDDEN:ADMIN_REQUIRED');
  });

  it('sets edited_at only for edits more than 5 minutes after posting', async () => {
    const t = await f.topic(alice);
    const c = await f.comment(bob, t, { at: '2026-03-01T10:00:00.000Z' });
    f.at('2026-03-01T10:05:00.000Z');
    expect((await f.d.comments.edit(bob.actor, c.id36, 'v2')).editedAt).toBeNull();
    f.at('2026-03-01T10:05:00.001Z');
    expect((await f.d.comments.edit(bob.actor, c.id36, 'v3')).editedAt).toEqual(new Date('2026-03-01T10:05:00.001Z'));
    expect(await code(f.d.comments.edit(alice.actor, c.id36, 'v4'))).toBe('FORBIDDEN:NOT_AUTHOR');
  });
});

describe('votes, bookmarks, ignores, labels, visits', () => {
  it("one vote per user per post, never on one's own", async () => {
    const t = await f.topic(alice);
    const c = await f.comment(bob, t);
    expect(await code(f.d.votes.vote(alice.actor, 'topic', t.id36))).toBe('FORBIDDEN:OWN_POST');
    expect(await code(f.d.votes.vote(bob.actor, 'comment', c.id36))).toBe('FORBIDDEN:OWN_POST');
    expect(await code(f.d.votes.vote(ANONYMOUS, 'topic', t.id36))).toBe('UNAUTHENTICATED:AUTHENTICATION_REQUIRED');
    const results = await Promise.all(Array.from({ length: 5 }, () => f.d.votes.vote(bob.actor, 'topic', t.id36)));
    expect(results.every((r) => r.voted)).toBe(true);
    expect((await f.d.topics.get(bob.actor, t.id36)).voteCount).toBe(1);
    await f.d.votes.unvote(bob.actor, 'topic', t.id36);
    await f.d.votes.unvote(bob.actor, 'topic', t.id36);
    expect(await f.d.topics.get(bob.actor, t.id36)).toMatchObject({ voteCount: 0, voted: false });
    expect((await f.d.votes.vote(alice.actor, 'comment', c.id36)).voteCount).toBe(1);
    expect(await code(f.d.votes.vote(bob.actor, 'topic', 'zzzzzz'))).toBe('NOT_FOUND:TOPIC_NOT_FOUND');
    expect(await code(f.d.votes.vote(bob.actor, 'topic', '0'))).toBe('BAD_USER_INPUT');
  });

  it('bookmarks and ignores', async () => {
    const t = await f.topic(alice);
    await f.d.bookmarks.bookmark(bob.actor, 'topic', t.id36);
    await f.d.ignores.ignore(bob.actor, t.id36);
    expect(await f.d.topics.get(bob.actor, t.id36)).toMatchObject({ bookmarked: true, ignored: true });
    await f.d.bookmarks.unbookmark(bob.actor, 'topic', t.id36);
    await f.d.ignores.unignore(bob.actor, t.id36);
    expect(await f.d.topics.get(bob.actor, t.id36)).toMatchObject({ bookmarked: false, ignored: false });
  });

  it("labels: not one's own, once per user, exemplary needs a reason, removable", async () => {
    const t = await f.topic(alice);
    const c = await f.comment(bob, t);
    expect(await code(f.d.labels.label(bob.actor, c.id36, 'joke'))).toBe('FORBIDDEN:OWN_POST');
    expect(await code(f.d.labels.label(alice.actor, c.id36, 'exemplary'))).toBe('BAD_USER_INPUT');
    expect(await code(f.d.labels.label(alice.actor, c.id36, 'bogus' as never))).toBe('BAD_USER_INPUT');
    expect((await f.d.labels.label(alice.actor, c.id36, 'exemplary', 'Great')).exemplary).toBe(true);
    expect(await code(f.d.labels.label(alice.actor, c.id36, 'exemplary', 'Again'))).toBe('CONFLICT:ALREADY_LABELLED');
    expect((await f.d.labels.unlabel(alice.actor, c.id36, 'exemplary')).exemplary).toBe(false);
    expect(await code(f.d.labels.label(alice.actor, c.id36, 'exemplary', 'Once more'))).toBe('ok');
  });

  it('records visits for logged-in users only', async () => {
    const t = await f.topic(alice);
    expect(await code(f.d.visits.record(ANONYMOUS, t.id36))).toBe('UNAUTHENTICATED:AUTHENTICATION_REQUIRED');
    f.at('2026-04-01T00:00:00.000Z');
    await f.d.visits.record(bob.actor, t.id36);
    expect((await f.d.topics.get(bob.actor, t.id36)).lastVisitTime).toEqual(new Date('2026-04-01T00:00:00.000Z'));
  });

  it('an actor that does not come from a token is checked against the database', async () => {
    const ghost: Actor = { kind: 'user', userId: 99999, username: 'ghost', isAdmin: false };
    expect(await code(f.d.topics.list(ghost, {}))).toBe('UNAUTHENTICATED:INVALID_TOKEN');
  });
});
