/** Each mutation of the contract through real HTTP: accounts, posting, reactions, admin actions. */
import { startTestServer, TestServer } from '../../helpers/server';
import { Factory, PASSWORD, TestUser } from '../../helpers/factories';
import { fails, gql, ok, rest } from './helpers';

let s: TestServer;
let f: Factory;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;

beforeAll(async () => {
  s = await startTestServer();
  f = new Factory(s, { group: 'tech' });
  alice = await f.user('alice');
  bob = await f.user('bob');
  admin = await f.user('root', { admin: true });
  await f.group('tech');
});
afterAll(async () => s?.close());

describe('accounts', () => {
  it('register creates an account and logs it in', async () => {
    const d = await ok(
      s,
      'mutation { register(username: "Newbie", password: "long enough pw") { token expiresAt user { ' +
        'username isAdmin } } }',
    );
    expect(d.register.user).toEqual({ username: 'Newbie', isAdmin: false });
    expect(new Date(d.register.expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect((await ok(s, '{ viewer { username } }', {}, d.register.token)).viewer.username).toBe('Newbie');
  });

  it('register refuses a taken username (CONFLICT) and invalid input (BAD_USER_INPUT naming the field)', async () => {
    expect(
      (await fails(s, 'mutation { register(username: "ALICE", password: "long enough pw") { token } }')).extensions
        ?.code,
    ).toBe('CONFLICT');
    const e = await fails(s, 'mutation { register(username: "a", password: "long enough pw") { token } }');
    expect(e.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'username' });
    expect(
      (await fails(s, 'mutation { register(username: "shortpw", password: "short") { token } }')).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'password' });
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
    expect(r.body.errors?.[0]).toMatchObject({
      message: 'Invalid username or password',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it('changePassword returns a new token and revokes the old ones', async () => {
    const carol = await f.user('carol');
    const d = await ok(
      s,
      `mutation { changePassword(currentPassword: "${PASSWORD}", newPassword: "a brand new password") { ` +
        `token user { username } } }`,
      {},
      carol.token,
    );
    expect(d.changePassword.user.username).toBe('carol');
    expect((await gql(s, '{ viewer { username } }', {}, carol.token)).status).toBe(401);
    expect((await ok(s, '{ viewer { username } }', {}, d.changePassword.token)).viewer.username).toBe('carol');
    expect(
      (await ok(s, 'mutation { login(username: "carol", password: "a brand new password") { token } }')).login.token,
    ).toBeTruthy();
    // A wrong current password is bad input on currentPassword (http.status 400), not a bad token (401): the token
    // still works.
    const wrong = await gql(
      s,
      'mutation { changePassword(currentPassword: "not it at all", newPassword: "another new one") { token } }',
      {},
      d.changePassword.token,
    );
    expect(wrong.status).toBe(200);
    expect(wrong.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'currentPassword' });
    expect((await ok(s, '{ viewer { username } }', {}, d.changePassword.token)).viewer.username).toBe('carol');
  });

  it('logoutEverywhere revokes every token; anonymous it is UNAUTHENTICATED', async () => {
    const dave = await f.user('dave');
    expect(await ok(s, 'mutation { logoutEverywhere }', {}, dave.token)).toEqual({ logoutEverywhere: true });
    expect((await gql(s, '{ viewer { username } }', {}, dave.token)).status).toBe(401);
    const r = await gql(s, 'mutation { logoutEverywhere }');
    expect(r.status).toBe(401);
    expect(r.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('updateSettings changes only what is given', async () => {
    const erin = await f.user('erin');
    const d = await ok(
      s,
      'mutation { updateSettings(input: { defaultCommentOrder: NEWEST, historyVisibility: LOGGED_IN }) { ' +
        'username settings { historyVisibility collapseOldComments defaultCommentOrder } } }',
      {},
      erin.token,
    );
    expect(d.updateSettings).toEqual({
      username: 'erin',
      settings: { historyVisibility: 'LOGGED_IN', collapseOldComments: true, defaultCommentOrder: 'NEWEST' },
    });
    const again = await ok(
      s,
      'mutation { updateSettings(input: { collapseOldComments: false }) { settings { historyVisibility ' +
        'collapseOldComments defaultCommentOrder } } }',
      {},
      erin.token,
    );
    expect(again.updateSettings.settings).toEqual({
      historyVisibility: 'LOGGED_IN',
      collapseOldComments: false,
      defaultCommentOrder: 'NEWEST',
    });
    expect((await rest(s, '/user/erin')).status).toBe(403);
  });
});

describe('topics', () => {
  it('postTopic posts a text topic and a link topic', async () => {
    const d = await ok(
      s,
      'mutation { postTopic(input: { group: "~tech", title: "Hello world", markdown: ' +
        '"Some **bold** words", tags: ["Ask.Survey", "hello_world"] }) { id title textHtml url tags ' +
        'group { path } author { username } contentMetadata voteCount commentCount isDeleted isRemoved ' +
        'isLocked isOfficial } }',
      {},
      alice.token,
    );
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
      isLocked: false,
      isOfficial: false,
    });
    const l = await ok(
      s,
      'mutation { postTopic(input: { group: "tech", title: "A video", link: "https://youtu.be/xyz" }) { ' +
        'url sourceSiteName textHtml } }',
      {},
      alice.token,
    );
    expect(l.postTopic).toEqual({ url: 'https://youtu.be/xyz', sourceSiteName: 'YouTube', textHtml: null });
  });

  it(`postTopic needs a login (401) and valid input (BAD_USER_INPUT naming the field); an unknown group is \
NOT_FOUND`, async () => {
    const anon = await gql(s, 'mutation { postTopic(input: { group: "tech", title: "x" }) { id } }');
    expect(anon.status).toBe(401);
    expect(
      (await fails(s, 'mutation { postTopic(input: { group: "tech", title: "" }) { id } }', {}, alice.token))
        .extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'title' });
    expect(
      (await fails(s, 'mutation { postTopic(input: { group: "nowhere", title: "x" }) { id } }', {}, alice.token))
        .extensions?.code,
    ).toMatch(/NOT_FOUND|BAD_USER_INPUT/);
  });

  it('editTopic (author only), deleteTopic (author only, then gone)', async () => {
    const t = await f.topic(alice, { title: 'Original' });
    const d = await ok(
      s,
      `mutation { editTopic(id: "${t.id36}", input: { title: "Edited", tags: ["x"] }) { id36 title tags } }`,
      {},
      alice.token,
    );
    expect(d.editTopic).toEqual({ id36: t.id36, title: 'Edited', tags: ['x'] });
    const other = await gql(
      s,
      `mutation { editTopic(id: "${t.id36}", input: { title: "Mine now" }) { id } }`,
      {},
      bob.token,
    );
    expect(other.status).toBe(403);
    expect(other.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(s, `mutation { deleteTopic(id: "${t.id36}") { id } }`, {}, bob.token)).status).toBe(403);
    const del = await ok(s, `mutation { deleteTopic(id: "${t.id36}") { id36 title isDeleted } }`, {}, alice.token);
    expect(del.deleteTopic).toEqual({ id36: t.id36, title: 'Edited', isDeleted: true });
    expect((await ok(s, `{ topic(id: "${t.id36}") { id } }`, {}, alice.token)).topic).toBeNull();
  });
});

describe('comments', () => {
  it('postComment posts top-level comments and replies; editComment and deleteComment (placeholder)', async () => {
    const t = await f.topic(alice);
    const posted = await ok(
      s,
      `mutation { postComment(topicId: "${t.id36}", markdown: "Top *level*") { depth isNew isCollapsed replies { depth }
         comment { id id36 parent { id } textHtml author { username } topic { id36 commentCount } viewerIsAuthor } } }`,
      {},
      bob.token,
    );
    expect(posted.postComment).toMatchObject({ depth: 0, isNew: false, isCollapsed: false, replies: [] });
    const top = { postComment: posted.postComment.comment };
    expect(top.postComment).toMatchObject({
      parent: null,
      textHtml: '<p>Top <em>level</em></p>',
      author: { username: 'bob' },
      topic: { id36: t.id36, commentCount: 1 },
      viewerIsAuthor: true,
    });
    // The parent named by its global id; the answer's depth is its place in the tree.
    const replied = await ok(
      s,
      `mutation { postComment(topicId: "${t.id36}", parentId: "${top.postComment.id}", markdown: ` +
        `"A reply") { depth comment { id id36 parent { id } } } }`,
      {},
      alice.token,
    );
    const reply = { postComment: replied.postComment.comment };
    expect(replied.postComment.depth).toBe(1);
    expect(reply.postComment.parent.id).toBe(top.postComment.id);
    const deeper = await ok(
      s,
      `mutation { postComment(topicId: "${t.id36}", parentId: "${reply.postComment.id36}", markdown: ` +
        `"Deeper") { depth } }`,
      {},
      bob.token,
    );
    expect(deeper.postComment.depth).toBe(2);

    const edited = await ok(
      s,
      `mutation { editComment(id: "${top.postComment.id}", markdown: "Changed") { id textHtml } }`,
      {},
      bob.token,
    );
    expect(edited.editComment.textHtml).toBe('<p>Changed</p>');
    expect(
      (
        await gql(
          s,
          `mutation { editComment(id: "${top.postComment.id}", markdown: "Hijack") { id } }`,
          {},
          alice.token,
        )
      ).status,
    ).toBe(403);

    const deleted = await ok(
      s,
      `mutation { deleteComment(id: "${top.postComment.id}") { id isDeleted author { username } textHtml } }`,
      {},
      bob.token,
    );
    expect(deleted.deleteComment).toEqual({ id: top.postComment.id, isDeleted: true, author: null, textHtml: null });
    const tree = await ok(
      s,
      `{ topic(id: "${t.id36}") { commentCount threads { nodes { comment { id isDeleted } replies { ` +
        `comment { id } } } } } }`,
    );
    expect(tree.topic.threads.nodes).toEqual([
      { comment: { id: top.postComment.id, isDeleted: true }, replies: [{ comment: { id: reply.postComment.id } }] },
    ]);
    expect(tree.topic.commentCount).toBe(2);
    // The placeholder is the same record through node(id:) as in the tree.
    expect(
      (
        await ok(
          s,
          'query($id: ID!) { node(id: $id) { ... on Comment { id isDeleted author { username } textHtml } } }',
          { id: top.postComment.id },
        )
      ).node,
    ).toEqual(deleted.deleteComment);
  });

  it(`postComment on an unknown topic is NOT_FOUND; a malformed topic id is BAD_USER_INPUT on topicId; empty \
text on markdown`, async () => {
    expect(
      (await fails(s, 'mutation { postComment(topicId: "zzzzzz", markdown: "x") { depth } }', {}, bob.token)).extensions
        ?.code,
    ).toBe('NOT_FOUND');
    expect(
      (await fails(s, 'mutation { postComment(topicId: "0", markdown: "x") { depth } }', {}, bob.token)).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'topicId' });
    const t = await f.topic(alice);
    expect(
      (await fails(s, `mutation { postComment(topicId: "${t.id36}", markdown: "  ") { depth } }`, {}, bob.token))
        .extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'markdown' });
  });
});

describe('reactions', () => {
  it('voteTopic / voteComment, and taking the vote back', async () => {
    const t = await f.topic(alice);
    const c = await f.comment(alice, t);
    expect(
      (await ok(s, `mutation { voteTopic(id: "${t.id36}") { voteCount viewerHasVoted } }`, {}, bob.token)).voteTopic,
    ).toEqual({ voteCount: 1, viewerHasVoted: true });
    expect(
      (await ok(s, `mutation { voteTopic(id: "${t.id36}", vote: true) { voteCount viewerHasVoted } }`, {}, bob.token))
        .voteTopic,
    ).toEqual({ voteCount: 1, viewerHasVoted: true });
    expect(
      (await ok(s, `mutation { voteTopic(id: "${t.id36}", vote: false) { voteCount viewerHasVoted } }`, {}, bob.token))
        .voteTopic,
    ).toEqual({ voteCount: 0, viewerHasVoted: false });
    expect(
      (await ok(s, `mutation { voteComment(id: "${c.id36}") { voteCount viewerHasVoted } }`, {}, bob.token))
        .voteComment,
    ).toEqual({ voteCount: 1, viewerHasVoted: true });
    expect(
      (
        await ok(
          s,
          `mutation { voteComment(id: "${c.id36}", vote: false) { voteCount viewerHasVoted } }`,
          {},
          bob.token,
        )
      ).voteComment,
    ).toEqual({ voteCount: 0, viewerHasVoted: false });
    const own = await fails(s, `mutation { voteTopic(id: "${t.id36}") { voteCount } }`, {}, alice.token);
    expect(own.extensions?.code).toMatch(/FORBIDDEN|BAD_USER_INPUT|CONFLICT/);
    expect((await fails(s, 'mutation { voteTopic(id: "zzzzzz") { voteCount } }', {}, bob.token)).extensions?.code).toBe(
      'NOT_FOUND',
    );
  });

  it('bookmarkTopic / bookmarkComment', async () => {
    const t = await f.topic(alice);
    const c = await f.comment(alice, t);
    expect(
      (await ok(s, `mutation { bookmarkTopic(id: "${t.id36}") { viewerHasBookmarked } }`, {}, bob.token)).bookmarkTopic
        .viewerHasBookmarked,
    ).toBe(true);
    expect(
      (
        await ok(
          s,
          `mutation { bookmarkTopic(id: "${t.id36}", bookmark: false) { viewerHasBookmarked } }`,
          {},
          bob.token,
        )
      ).bookmarkTopic.viewerHasBookmarked,
    ).toBe(false);
    expect(
      (await ok(s, `mutation { bookmarkComment(id: "${c.id36}") { viewerHasBookmarked } }`, {}, bob.token))
        .bookmarkComment.viewerHasBookmarked,
    ).toBe(true);
    expect(
      (
        await ok(
          s,
          `mutation { bookmarkComment(id: "${c.id36}", bookmark: false) { viewerHasBookmarked } }`,
          {},
          bob.token,
        )
      ).bookmarkComment.viewerHasBookmarked,
    ).toBe(false);
  });

  it('ignoreTopic hides the topic from the listing but it stays readable', async () => {
    const t = await f.topic(alice, { title: 'Ignore me' });
    expect(
      (await ok(s, `mutation { ignoreTopic(id: "${t.id36}") { viewerHasIgnored } }`, {}, bob.token)).ignoreTopic
        .viewerHasIgnored,
    ).toBe(true);
    const list = await ok(s, '{ topics(first: 100) { edges { node { id36 } } } }', {}, bob.token);
    expect(list.topics.edges.map((e: any) => e.node.id36)).not.toContain(t.id36);
    expect((await ok(s, `{ topic(id: "${t.id36}") { viewerHasIgnored } }`, {}, bob.token)).topic.viewerHasIgnored).toBe(
      true,
    );
    expect(
      (await ok(s, `mutation { ignoreTopic(id: "${t.id36}", ignore: false) { viewerHasIgnored } }`, {}, bob.token))
        .ignoreTopic.viewerHasIgnored,
    ).toBe(false);
  });

  it(`labelComment: exemplary needs a reason, activates the label; add: false takes it back; never on one's \
own`, async () => {
    const t = await f.topic(alice);
    const c = await f.comment(alice, t, { markdown: 'Very good' });
    expect(
      (await fails(s, `mutation { labelComment(id: "${c.id36}", label: EXEMPLARY) { id } }`, {}, bob.token)).extensions
        ?.code,
    ).toBe('BAD_USER_INPUT');
    const d = await ok(
      s,
      `mutation { labelComment(id: "${c.id36}", label: EXEMPLARY, reason: "Great") { isExemplary } }`,
      {},
      bob.token,
    );
    expect(d.labelComment.isExemplary).toBe(true);
    const off = await ok(
      s,
      `mutation { labelComment(id: "${c.id36}", label: EXEMPLARY, add: false) { isExemplary } }`,
      {},
      bob.token,
    );
    expect(off.labelComment.isExemplary).toBe(false);
    const noise = await ok(s, `mutation { labelComment(id: "${c.id36}", label: NOISE) { id36 } }`, {}, bob.token);
    expect(noise.labelComment.id36).toBe(c.id36);
    expect(
      (await ok(s, `{ topic(id: "${t.id36}") { threads { nodes { isCollapsed } } } }`)).topic.threads.nodes[0]
        .isCollapsed,
    ).toBe(true);
    const own = await fails(s, `mutation { labelComment(id: "${c.id36}", label: JOKE) { id } }`, {}, alice.token);
    expect(own.extensions?.code).toMatch(/FORBIDDEN|BAD_USER_INPUT/);
  });
});

describe('admin', () => {
  it('createGroup: admins only (403 for users, 401 anonymous), CONFLICT when it exists', async () => {
    expect(
      (
        await ok(
          s,
          'mutation { createGroup(path: "~science", description: "Research") { path description } }',
          {},
          admin.token,
        )
      ).createGroup,
    ).toEqual({ path: 'science', description: 'Research' });
    expect((await gql(s, 'mutation { createGroup(path: "art") { path } }', {}, alice.token)).status).toBe(403);
    expect((await gql(s, 'mutation { createGroup(path: "art") { path } }')).status).toBe(401);
    expect(
      (await fails(s, 'mutation { createGroup(path: "science") { path } }', {}, admin.token)).extensions?.code,
    ).toBe('CONFLICT');
    expect(
      (await fails(s, 'mutation { createGroup(path: "Not Valid!") { path } }', {}, admin.token)).extensions,
    ).toMatchObject({ code: 'BAD_USER_INPUT', field: 'path' });
  });

  it('removeTopic / restore, lockTopic, setTopicOfficial, editTopicTags', async () => {
    const t = await f.topic(alice, { title: 'Moderated' });
    expect((await gql(s, `mutation { removeTopic(id: "${t.id36}") { id } }`, {}, bob.token)).status).toBe(403);
    expect(
      (await ok(s, `mutation { removeTopic(id: "${t.id36}") { isRemoved } }`, {}, admin.token)).removeTopic.isRemoved,
    ).toBe(true);
    expect((await ok(s, `{ topic(id: "${t.id36}") { id } }`, {}, bob.token)).topic).toBeNull();
    expect(
      (await ok(s, `mutation { removeTopic(id: "${t.id36}", removed: false) { isRemoved } }`, {}, admin.token))
        .removeTopic.isRemoved,
    ).toBe(false);
    expect(
      (await ok(s, `mutation { lockTopic(id: "${t.id36}") { isLocked } }`, {}, admin.token)).lockTopic.isLocked,
    ).toBe(true);
    const locked = await fails(
      s,
      `mutation { postComment(topicId: "${t.id36}", markdown: "late") { depth } }`,
      {},
      bob.token,
    );
    expect(locked.extensions?.code).toBe('FORBIDDEN');
    expect(
      (await ok(s, `mutation { lockTopic(id: "${t.id36}", locked: false) { isLocked } }`, {}, admin.token)).lockTopic
        .isLocked,
    ).toBe(false);
    expect(
      (await ok(s, `mutation { setTopicOfficial(id: "${t.id36}") { isOfficial } }`, {}, admin.token)).setTopicOfficial
        .isOfficial,
    ).toBe(true);
    expect(
      (await ok(s, `mutation { setTopicOfficial(id: "${t.id36}", official: false) { isOfficial } }`, {}, admin.token))
        .setTopicOfficial.isOfficial,
    ).toBe(false);
    expect(
      (
        await ok(
          s,
          `mutation { editTopicTags(id: "${t.id36}", tags: ["Meta.Announcements"]) { tags } }`,
          {},
          admin.token,
        )
      ).editTopicTags.tags,
    ).toEqual(['meta.announcements']);
  });

  it('removeComment hides a comment from others; restore with removed: false', async () => {
    const t = await f.topic(alice);
    const c = await f.comment(bob, t, { markdown: 'Rude' });
    expect(
      (await ok(s, `mutation { removeComment(id: "${c.id36}") { isRemoved } }`, {}, admin.token)).removeComment
        .isRemoved,
    ).toBe(true);
    const others = await ok(
      s,
      `{ topic(id: "${t.id36}") { threads { nodes { comment { isRemoved author { username } textHtml } } } } }`,
      {},
      alice.token,
    );
    expect(others.topic.threads.nodes.map((n: any) => n.comment)).toEqual([
      { isRemoved: true, author: null, textHtml: null },
    ]);
    const mine = await ok(
      s,
      `{ topic(id: "${t.id36}") { threads { nodes { comment { author { username } } } } } }`,
      {},
      bob.token,
    );
    expect(mine.topic.threads.nodes[0].comment.author).toEqual({ username: 'bob' });
    expect(
      (await ok(s, `mutation { removeComment(id: "${c.id36}", removed: false) { isRemoved } }`, {}, admin.token))
        .removeComment.isRemoved,
    ).toBe(false);
  });

  it("banUser: the user's tokens stop working; unban restores them", async () => {
    const frank = await f.user('frank');
    expect((await gql(s, 'mutation { banUser(username: "frank") { username } }', {}, alice.token)).status).toBe(403);
    expect(
      (await ok(s, 'mutation { banUser(username: "FRANK") { username } }', {}, admin.token)).banUser.username,
    ).toBe('frank');
    expect((await gql(s, '{ viewer { username } }', {}, frank.token)).status).toBe(401);
    const closed = await gql(s, '{ user(username: "frank") { history { edges { cursor } } } }');
    expect([closed.status, closed.body.data, closed.body.errors?.[0]?.extensions?.code]).toEqual([
      200,
      { user: null },
      'FORBIDDEN',
    ]);
    await ok(s, 'mutation { banUser(username: "frank", banned: false) { username } }', {}, admin.token);
    expect((await ok(s, '{ viewer { username } }', {}, frank.token)).viewer.username).toBe('frank');
  });
});
