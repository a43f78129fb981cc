/** Each mutation of the contract through real HTTP: accounts, posting, reactions, admin actions. */
import { startTestServer, TestServer } from '../../helpers/server';
import { fails, gql, makeComment, makeGroup, makeTopic, makeUser, ok, PASSWORD, rest, TestUser } from './helpers';

let s: TestServer;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeAll(async () => {
  s = await startTestServer();
  alice = await makeUser(s, 'alice');
  bob = await makeUser(s, 'bob');
  admin = await makeUser(s, 'root', { admin: true });
  await makeGroup(s, 'tech');
});
afterAll(async () => s?.close());

describe('accounts', () => {
  it('register creates an account and logs it in', async () => {
    const d = await ok(s, 'mutation { register(username: "Newbie", password: "long enough pw") { token expiresAt user { username isAdmin } } }');
    expect(d.register.user).toEqual({ username: 'Newbie', isAdmin: false });
    expect(new Date(d.register.expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect((await ok(s, '{ viewer { username } }', {}, d.register.token)).viewer.username).toBe('Newbie');
  });

  it('register refuses a taken username (CONFLICT) and invalid input (BAD_USER_INPUT naming the field)', async () => {
    expect((await fails(s, 'mutation { register(username: "ALICE", password: "long enough pw") { token } }')).extensions?.code).toBe('CONFLICT');
    const e = await fails(s, 'mutation { register(username: "a", password: "long enough pw") { token } }');
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'username' });
    expect((await fails(s, 'mutation { register(username: "shortpw", password: "short") { token } }')).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'password' });
  });

  it('register is FORBIDDEN (403) when registration is closed', async () => {
    const closed = await startTestServer({ REGISTRATION_OPEN: 'false' });
    try {
      const r = await gql(closed, 'mutation { register(username: "someone", password: "long enough pw") { token } }');
      expect(r.status).toBe(403);
      expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    } finally {
      await closed.close();
    }
  });

  it('login returns a token and the user; wrong credentials are UNAUTHENTICATED (401)', async () => {
    const d = await ok(s, `mutation { login(username: "ALICE", password: "${PASSWORD}") { token user { username } } }`);
    expect(d.login.user.username).toBe('alice');
    const r = await gql(s, 'mutation { login(username: "alice", password: "nope nope nope") { token } }');
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]).toMatchObject({ message: 'Invalid username or password', extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('changePassword returns a new token and revokes the old ones', async () => {
    const carol = await makeUser(s, 'carol');
    const d = await ok(s, `mutation { changePassword(currentPassword: "${PASSWORD}", newPassword: "a brand new password") { token user { username } } }`, {}, carol.token);
    expect(d.changePassword.user.username).toBe('carol');
    expect((await gql(s, '{ viewer { username } }', {}, carol.token)).status).toBe(401);
    expect((await ok(s, '{ viewer { username } }', {}, d.changePassword.token)).viewer.username).toBe('carol');
    expect((await ok(s, 'mutation { login(username: "carol", password: "a brand new password") { token } }')).login.token).toBeTruthy();
    // A wrong current password is bad input on currentPassword (http.status 400), not a bad token (401): the token still works.
    const wrong = await gql(s, 'mutation { changePassword(currentPassword: "not it at all", newPassword: "another new one") { token } }', {}, d.changePassword.token);
    expect(wrong.status).toBe(200);
    expect(wrong.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'currentPassword' });
    expect((await ok(s, '{ viewer { username } }', {}, d.changePassword.token)).viewer.username).toBe('carol');
  });

  it('logoutEverywhere revokes every token; anonymous it is UNAUTHENTICATED', async () => {
    const dave = await makeUser(s, 'dave');
    expect(await ok(s, 'mutation { logoutEverywhere }', {}, dave.token)).toEqual({ logoutEverywhere: true });
    expect((await gql(s, '{ viewer { username } }', {}, dave.token)).status).toBe(401);
    const r = await gql(s, 'mutation { logoutEverywhere }');
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('updateSettings changes only what is given', async () => {
    const erin = await makeUser(s, 'erin');
    const d = await ok(s, 'mutation { updateSettings(input: { defaultCommentOrder: NEWEST, historyVisibility: LOGGED_IN }) { username settings { historyVisibility collapseOldComments defaultCommentOrder } } }', {}, erin.token);
    expect(d.updateSettings).toEqual({ username: 'erin', settings: { historyVisibility: 'LOGGED_IN', collapseOldComments: true, defaultCommentOrder: 'NEWEST' } });
    const again = await ok(s, 'mutation { updateSettings(input: { collapseOldComments: false }) { settings { historyVisibility collapseOldComments defaultCommentOrder } } }', {}, erin.token);
    expect(again.updateSettings.settings).toEqual({ historyVisibility: 'LOGGED_IN', collapseOldComments: false, defaultCommentOrder: 'NEWEST' });
    expect((await rest(s, '/user/erin')).status).toBe(403);
  });
});

describe('topics', () => {
  it('postTopic posts a text topic and a link topic', async () => {
    const d = await ok(s, 'mutation { postTopic(input: { group: "~tech", title: "Hello world", markdown: "Some **bold** words", tags: ["Ask.Survey", "hello_world"] }) { id title textHtml url tags group { path } author { username } contentMetadata voteCount commentCount isDeleted isRemoved locked official } }', {}, alice.token);
    expect(d.postTopic).toMatchObject({
      title: 'Hello world',
      textHtml: '<p>Some <strong>bold</strong> words</p>',
      url: null,
      tags: ['ask.survey', 'hello world'],
      group: { path: 'tech' },
      author: { username: 'alice' },
      contentMetadata: ['3 words'],
      voteCount: 0,
      commentCount: 0,
      isDeleted: false,
      isRemoved: false,
      locked: false,
      official: false,
    });
    const l = await ok(s, 'mutation { postTopic(input: { group: "tech", title: "A video", link: "https://youtu.be/xyz" }) { url sourceSiteName textHtml } }', {}, alice.token);
    expect(l.postTopic).toEqual({ url: 'https://youtu.be/xyz', sourceSiteName: 'YouTube', textHtml: null });
  });

  it('postTopic needs a login (401) and valid input (BAD_USER_INPUT naming the field); an unknown group is NOT_FOUND', async () => {
    const anon = await gql(s, 'mutation { postTopic(input: { group: "tech", title: "x" }) { id } }');
    expect(anon.status).toBe(401);
    expect((await fails(s, 'mutation { postTopic(input: { group: "tech", title: "" }) { id } }', {}, alice.token)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'title' });
    expect((await fails(s, 'mutation { postTopic(input: { group: "nowhere", title: "x" }) { id } }', {}, alice.token)).extensions?.code).toMatch(/NOT_FOUND|BAD_USER_INPUT/);
  });

  it('editTopic (author only), deleteTopic (author only, then gone)', async () => {
    const t = await makeTopic(s, alice, { title: 'Original' });
    const d = await ok(s, `mutation { editTopic(id: "${t.id36}", input: { title: "Edited", tags: ["x"] }) { id title tags } }`, {}, alice.token);
    expect(d.editTopic).toEqual({ id: t.id36, title: 'Edited', tags: ['x'] });
    const other = await gql(s, `mutation { editTopic(id: "${t.id36}", input: { title: "Mine now" }) { id } }`, {}, bob.token);
    expect(other.status).toBe(403);
    expect(other.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(s, `mutation { deleteTopic(id: "${t.id36}") { id } }`, {}, bob.token)).status).toBe(403);
    const del = await ok(s, `mutation { deleteTopic(id: "${t.id36}") { id title isDeleted } }`, {}, alice.token);
    expect(del.deleteTopic).toEqual({ id: t.id36, title: 'Edited', isDeleted: true });
    expect((await ok(s, `{ topic(id: "${t.id36}") { id } }`, {}, alice.token)).topic).toBeNull();
  });
});

describe('comments', () => {
  it('postComment posts top-level comments and replies; editComment and deleteComment (placeholder)', async () => {
    const t = await makeTopic(s, alice);
    const top = await ok(s, `mutation { postComment(topicId: "${t.id36}", markdown: "Top *level*") { id parentId depth renderedHtml author { username } topic { id commentCount } isMe } }`, {}, bob.token);
    expect(top.postComment).toMatchObject({ parentId: null, depth: 0, renderedHtml: '<p>Top <em>level</em></p>', author: { username: 'bob' }, topic: { id: t.id36, commentCount: 1 }, isMe: true });
    const reply = await ok(s, `mutation { postComment(topicId: "${t.id36}", parentId: "${top.postComment.id}", markdown: "A reply") { id parentId parent { id } } }`, {}, alice.token);
    expect(reply.postComment.parentId).toBe(top.postComment.id);
    expect(reply.postComment.parent.id).toBe(top.postComment.id);

    const edited = await ok(s, `mutation { editComment(id: "${top.postComment.id}", markdown: "Changed") { id renderedHtml } }`, {}, bob.token);
    expect(edited.editComment.renderedHtml).toBe('<p>Changed</p>');
    expect((await gql(s, `mutation { editComment(id: "${top.postComment.id}", markdown: "Hijack") { id } }`, {}, alice.token)).status).toBe(403);

    const deleted = await ok(s, `mutation { deleteComment(id: "${top.postComment.id}") { id isDeleted author { username } renderedHtml } }`, {}, bob.token);
    expect(deleted.deleteComment).toEqual({ id: top.postComment.id, isDeleted: true, author: null, renderedHtml: null });
    const tree = await ok(s, `{ topic(id: "${t.id36}") { commentCount comments { id isDeleted children { id } } } }`);
    expect(tree.topic.comments).toEqual([{ id: top.postComment.id, isDeleted: true, children: [{ id: reply.postComment.id }] }]);
    expect(tree.topic.commentCount).toBe(1);
  });

  it('postComment on an unknown topic is NOT_FOUND; a malformed topic id is BAD_USER_INPUT on topicId; empty text on markdown', async () => {
    expect((await fails(s, 'mutation { postComment(topicId: "zzzzzz", markdown: "x") { id } }', {}, bob.token)).extensions?.code).toBe('NOT_FOUND');
    expect((await fails(s, 'mutation { postComment(topicId: "0", markdown: "x") { id } }', {}, bob.token)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'topicId' });
    const t = await makeTopic(s, alice);
    expect((await fails(s, `mutation { postComment(topicId: "${t.id36}", markdown: "  ") { id } }`, {}, bob.token)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'markdown' });
  });
});

describe('reactions', () => {
  it('voteTopic / voteComment, and taking the vote back', async () => {
    const t = await makeTopic(s, alice);
    const c = await makeComment(s, alice, t);
    expect((await ok(s, `mutation { voteTopic(id: "${t.id36}") { voteCount voted } }`, {}, bob.token)).voteTopic).toEqual({ voteCount: 1, voted: true });
    expect((await ok(s, `mutation { voteTopic(id: "${t.id36}", vote: true) { voteCount voted } }`, {}, bob.token)).voteTopic).toEqual({ voteCount: 1, voted: true });
    expect((await ok(s, `mutation { voteTopic(id: "${t.id36}", vote: false) { voteCount voted } }`, {}, bob.token)).voteTopic).toEqual({ voteCount: 0, voted: false });
    expect((await ok(s, `mutation { voteComment(id: "${c.id36}") { votes voted } }`, {}, bob.token)).voteComment).toEqual({ votes: 1, voted: true });
    expect((await ok(s, `mutation { voteComment(id: "${c.id36}", vote: false) { votes voted } }`, {}, bob.token)).voteComment).toEqual({ votes: 0, voted: false });
    const own = await fails(s, `mutation { voteTopic(id: "${t.id36}") { voteCount } }`, {}, alice.token);
    expect(own.extensions?.code).toMatch(/FORBIDDEN|BAD_USER_INPUT|CONFLICT/);
    expect((await fails(s, 'mutation { voteTopic(id: "zzzzzz") { voteCount } }', {}, bob.token)).extensions?.code).toBe('NOT_FOUND');
  });

  it('bookmarkTopic / bookmarkComment', async () => {
    const t = await makeTopic(s, alice);
    const c = await makeComment(s, alice, t);
    expect((await ok(s, `mutation { bookmarkTopic(id: "${t.id36}") { bookmarked } }`, {}, bob.token)).bookmarkTopic.bookmarked).toBe(true);
    expect((await ok(s, `mutation { bookmarkTopic(id: "${t.id36}", bookmark: false) { bookmarked } }`, {}, bob.token)).bookmarkTopic.bookmarked).toBe(false);
    expect((await ok(s, `mutation { bookmarkComment(id: "${c.id36}") { bookmarked } }`, {}, bob.token)).bookmarkComment.bookmarked).toBe(true);
    expect((await ok(s, `mutation { bookmarkComment(id: "${c.id36}", bookmark: false) { bookmarked } }`, {}, bob.token)).bookmarkComment.bookmarked).toBe(false);
  });

  it('ignoreTopic hides the topic from the listing but it stays readable', async () => {
    const t = await makeTopic(s, alice, { title: 'Ignore me' });
    expect((await ok(s, `mutation { ignoreTopic(id: "${t.id36}") { ignored } }`, {}, bob.token)).ignoreTopic.ignored).toBe(true);
    const list = await ok(s, '{ topics(first: 100) { edges { node { id } } } }', {}, bob.token);
    expect(list.topics.edges.map((e: any) => e.node.id)).not.toContain(t.id36);
    expect((await ok(s, `{ topic(id: "${t.id36}") { ignored } }`, {}, bob.token)).topic.ignored).toBe(true);
    expect((await ok(s, `mutation { ignoreTopic(id: "${t.id36}", ignore: false) { ignored } }`, {}, bob.token)).ignoreTopic.ignored).toBe(false);
  });

  it('labelComment: exemplary needs a reason, activates the label; add: false takes it back; never on one\'s own', async () => {
    const t = await makeTopic(s, alice);
    const c = await makeComment(s, alice, t, 'Very good');
    expect((await fails(s, `mutation { labelComment(id: "${c.id36}", label: EXEMPLARY) { id } }`, {}, bob.token)).extensions?.code).toBe('BAD_USER_INPUT');
    const d = await ok(s, `mutation { labelComment(id: "${c.id36}", label: EXEMPLARY, reason: "Great") { exemplary } }`, {}, bob.token);
    expect(d.labelComment.exemplary).toBe(true);
    const off = await ok(s, `mutation { labelComment(id: "${c.id36}", label: EXEMPLARY, add: false) { exemplary } }`, {}, bob.token);
    expect(off.labelComment.exemplary).toBe(false);
    const noise = await ok(s, `mutation { labelComment(id: "${c.id36}", label: NOISE) { id } }`, {}, bob.token);
    expect(noise.labelComment.id).toBe(c.id36);
    expect((await ok(s, `{ topic(id: "${t.id36}") { comments { collapsed } } }`)).topic.comments[0].collapsed).toBe(true);
    const own = await fails(s, `mutation { labelComment(id: "${c.id36}", label: JOKE) { id } }`, {}, alice.token);
    expect(own.extensions?.code).toMatch(/FORBIDDEN|BAD_USER_INPUT/);
  });
});

describe('admin', () => {
  it('createGroup: admins only (403 for users, 401 anonymous), CONFLICT when it exists', async () => {
    expect((await ok(s, 'mutation { createGroup(path: "~science", description: "Research") { path description } }', {}, admin.token)).createGroup).toEqual({ path: 'science', description: 'Research' });
    expect((await gql(s, 'mutation { createGroup(path: "art") { path } }', {}, alice.token)).status).toBe(403);
    expect((await gql(s, 'mutation { createGroup(path: "art") { path } }')).status).toBe(401);
    expect((await fails(s, 'mutation { createGroup(path: "science") { path } }', {}, admin.token)).extensions?.code).toBe('CONFLICT');
    expect((await fails(s, 'mutation { createGroup(path: "Not Valid!") { path } }', {}, admin.token)).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'path' });
  });

  it('removeTopic / restore, lockTopic, setTopicOfficial, editTopicTags', async () => {
    const t = await makeTopic(s, alice, { title: 'Moderated' });
    expect((await gql(s, `mutation { removeTopic(id: "${t.id36}") { id } }`, {}, bob.token)).status).toBe(403);
    expect((await ok(s, `mutation { removeTopic(id: "${t.id36}") { isRemoved } }`, {}, admin.token)).removeTopic.isRemoved).toBe(true);
    expect((await ok(s, `{ topic(id: "${t.id36}") { id } }`, {}, bob.token)).topic).toBeNull();
    expect((await ok(s, `mutation { removeTopic(id: "${t.id36}", removed: false) { isRemoved } }`, {}, admin.token)).removeTopic.isRemoved).toBe(false);
    expect((await ok(s, `mutation { lockTopic(id: "${t.id36}") { locked } }`, {}, admin.token)).lockTopic.locked).toBe(true);
    const locked = await fails(s, `mutation { postComment(topicId: "${t.id36}", markdown: "late") { id } }`, {}, bob.token);
    expect(locked.extensions?.code).toBe('FORBIDDEN');
    expect((await ok(s, `mutation { lockTopic(id: "${t.id36}", locked: false) { locked } }`, {}, admin.token)).lockTopic.locked).toBe(false);
    expect((await ok(s, `mutation { setTopicOfficial(id: "${t.id36}") { official } }`, {}, admin.token)).setTopicOfficial.official).toBe(true);
    expect((await ok(s, `mutation { setTopicOfficial(id: "${t.id36}", official: false) { official } }`, {}, admin.token)).setTopicOfficial.official).toBe(false);
    expect((await ok(s, `mutation { editTopicTags(id: "${t.id36}", tags: ["Meta.Announcements"]) { tags } }`, {}, admin.token)).editTopicTags.tags).toEqual(['meta.announcements']);
  });

  it('removeComment hides a comment from others; restore with removed: false', async () => {
    const t = await makeTopic(s, alice);
    const c = await makeComment(s, bob, t, 'Rude');
    expect((await ok(s, `mutation { removeComment(id: "${c.id36}") { isRemoved } }`, {}, admin.token)).removeComment.isRemoved).toBe(true);
    const others = await ok(s, `{ topic(id: "${t.id36}") { comments { isRemoved author { username } renderedHtml } } }`, {}, alice.token);
    expect(others.topic.comments).toEqual([{ isRemoved: true, author: null, renderedHtml: null }]);
    const mine = await ok(s, `{ topic(id: "${t.id36}") { comments { author { username } } } }`, {}, bob.token);
    expect(mine.topic.comments[0].author).toEqual({ username: 'bob' });
    expect((await ok(s, `mutation { removeComment(id: "${c.id36}", removed: false) { isRemoved } }`, {}, admin.token)).removeComment.isRemoved).toBe(false);
  });

  it('banUser: the user\'s tokens stop working; unban restores them', async () => {
    const frank = await makeUser(s, 'frank');
    expect((await gql(s, 'mutation { banUser(username: "frank") { username } }', {}, alice.token)).status).toBe(403);
    expect((await ok(s, 'mutation { banUser(username: "FRANK") { username } }', {}, admin.token)).banUser.username).toBe('frank');
    expect((await gql(s, '{ viewer { username } }', {}, frank.token)).status).toBe(401);
    expect((await gql(s, '{ user(username: "frank") { history { edges { cursor } } } }')).status).toBe(403);
    await ok(s, 'mutation { banUser(username: "frank", banned: false) { username } }', {}, admin.token);
    expect((await ok(s, '{ viewer { username } }', {}, frank.token)).viewer.username).toBe('frank');
  });
});
