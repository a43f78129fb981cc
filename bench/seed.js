#!/usr/bin/env node
/**
 * The API benchmark's dataset (issue 6): 1,000 users, 20 groups, 10,000 tagged topics, 100,000
 * comments — one topic holding 5,000 of them in a deep and wide tree — with votes, bookmarks,
 * labels, visits, ignores, edits, deletions, removals, bans.
 *
 * Posting that through the services one call at a time takes hours on FerretDB, so the dataset is
 * written in bulk (`insertMany` through the app's own mongoose models) from documents computed the
 * way the services compute them. How that is kept honest:
 *
 *   - The dataset is a *plan*: users, groups and one time-ordered list of events (post a topic,
 *     post a comment, vote, bookmark, label, edit, delete, remove, visit, ignore, lock, ban, …).
 *   - `simulate(plan)` applies the events in memory with the services' rules (the project's own
 *     markdown renderer, word counts, tag match keys, label activity, counters, activity times)
 *     and returns the documents.
 *   - `verify` (run once whenever a dataset is built, or `node bench/seed.js --verify`) replays a
 *     small plan made by the same generator through the real services (clock set to each event's
 *     time) into a scratch database and compares every document with what `simulate` produced for
 *     that plan. Any difference fails the benchmark.
 *
 * One deliberate difference: password hashes. scrypt costs ~160 ms here, so the 1,000 users share
 * 8 real hashes (random salts) of the same password; every user can log in.
 *
 * On FerretDB the seeded SQLite file is cached under the cache directory keyed by DATASET.version
 * and copied into each run's data directory, so only the first `npm run bench` pays for seeding.
 *
 *   node bench/seed.js --verify            replay check only (scratch database)
 *   node bench/seed.js --uri mongodb://…/db   seed that database (dropped first)
 */
'use strict';
const { mulberry32 } = require('./lib/random');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { requireDist, startDatabase, tempDir } = require('./lib/agora');

const DATASET = Object.freeze({
  // 2: seeded by FerretDB with patch 0007 (sortable index columns); a v1 copy would rebuild its indexes at every run.
  // 3: comments carry their depth, as posts store it since (CommentDoc.depth).
  // 4: the history indexes lead with the deleted and removed flags (models.ts); a v3 copy would
  //    build them, and drop the index they replace, at every run.
  version: 4,
  users: 1000,
  groups: 20,
  topics: 10_000,
  comments: 100_000,
  bigTopicComments: 5000,
  /** Last moment of ordinary activity; the closing phase (locks, bans) follows. */
  end: Date.UTC(2026, 9, 31, 12, 0, 0),
  seed: 20261101,
});
const PASSWORD = 'bench-password';
const DB_NAME = 'agora_bench';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness and text

function makeRandom(seed) {
  const next = mulberry32(seed);
  const r = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    /** Geometric-like count with the given mean, capped. */
    count: (mean, cap) => Math.min(cap, Math.floor(-Math.log(1 - next()) * mean)),
    exp: (mean) => -Math.log(1 - next()) * mean,
  };
  return r;
}

/** Zipf-like sampler over 0..n-1 (rank 0 most likely). */
function zipf(rand, n, s) {
  const cum = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cum[i] = total += 1 / Math.pow(i + 1, s);
  return () => {
    const x = rand.next() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const WORDS = (
  'the a of and to in is that it for on with as was at by this be from or have an they not are ' +
  'which you one had but all were there when we what your can said more each about how their if ' +
  'will up other out many then them these so some would make like him into time has look two write ' +
  'see number way could people than first water been call who oil its now find long down day did ' +
  'get come made may part board game player piano server database query index latency memory cache ' +
  'thread kernel compiler garden recipe bread coffee tea mountain river journey budget invoice ' +
  'telescope orbit planet galaxy theory experiment result sample dataset model review chapter novel ' +
  'author film scene music album guitar drum melody rhythm tournament season league match goal'
).split(' ');
const SITES = [
  'https://www.youtube.com/watch?v=',
  'https://github.com/example/',
  'https://en.wikipedia.org/wiki/',
  'https://old.reddit.com/r/',
  'https://arxiv.org/abs/',
  'https://www.theguardian.com/',
  'https://www.bbc.co.uk/news/',
  'https://blog.example.org/posts/',
  'https://news.example.com/story/',
  'https://www.nytimes.com/2026/',
];
const GROUP_PATHS = [
  'tech',
  'tech.programming',
  'tech.hardware',
  'tech.security',
  'games',
  'games.tabletop',
  'games.video',
  'music',
  'music.classical',
  'science',
  'science.space',
  'books',
  'movies',
  'food',
  'travel',
  'sports',
  'news',
  'ask',
  'finance',
  'health',
];
const TAGS = [
  'ask',
  'ask.survey',
  'ask.recommendations',
  'ask.help',
  'discussion',
  'news',
  'opinion',
  'hello world',
  'two player',
  'open source',
  'linux',
  'rust',
  'typescript',
  'databases',
  'performance',
  'security.vulnerabilities',
  'hardware.gpu',
  'classical',
  'piano',
  'jazz',
  'space.mars',
  'space.telescopes',
  'physics',
  'biology',
  'history',
  'fiction',
  'scifi',
  'recipes',
  'coffee',
  'travel.europe',
  'travel.asia',
  'football',
  'chess',
  'board games',
  'video games.rpg',
  'personal finance',
  'fitness',
  'mental health',
  'meta',
  'meta.site',
  'tutorial',
  'release',
  'long read',
  'video',
  'podcast',
];

function sentence(rand, words) {
  const out = [];
  for (let i = 0; i < words; i++) {
    let w = rand.pick(WORDS);
    const r = rand.next();
    if (r < 0.02) w = `*${w}*`;
    else if (r < 0.03) w = `**${w}**`;
    else if (r < 0.035) w = `\`${w}\``;
    else if (r < 0.04) w = `[${w}](https://example.org/${w})`;
    out.push(w);
  }
  const s = out.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + rand.pick(['.', '.', '.', '?', '!']);
}

function markdown(rand, minWords, maxWords) {
  const total = rand.int(minWords, maxWords);
  const paras = [];
  let left = total;
  while (left > 0) {
    const n = Math.min(left, rand.int(6, 40));
    left -= n;
    let p = sentence(rand, n);
    const r = rand.next();
    if (r < 0.06) p = `> ${p}`;
    else if (r < 0.1) p = `- ${sentence(rand, 3)}\n- ${sentence(rand, 4)}\n- ${p}`;
    paras.push(p);
  }
  return paras.join('\n\n');
}

function title(rand) {
  const s = sentence(rand, rand.int(4, 11))
    .replace(/[*`[\]()]/g, '')
    .replace(/https?:\/\/\S+/g, '');
  const t = s.replace(/\s+/g, ' ').trim();
  return rand.chance(0.1) ? t.replace(/^(\w+)/, "What's $1") : t;
}

// ---------------------------------------------------------------------------------------------
// The plan: users, groups and one ordered event list

/**
 * Builds the plan for `spec` ({users, groups, topics, comments, bigTopicComments, end, seed}).
 * Events carry plan keys (topic / comment indexes); ids are assigned when posts happen, as the
 * services' counters do.
 */
function makePlan(spec) {
  const rand = makeRandom(spec.seed);
  const U = spec.users;
  const start = spec.end - 120 * DAY;
  const users = [];
  for (let i = 1; i <= U; i++) {
    users.push({
      key: i,
      username: i === 1 ? 'admin' : `member${i}`,
      isAdmin: i === 1,
      createdAt: start - 400 * DAY + i * 3 * MIN,
      settings: {
        historyVisibility: rand.chance(0.03) ? 'logged_in' : 'everyone',
        collapseOldComments: !rand.chance(0.05),
        defaultCommentOrder: rand.chance(0.05) ? rand.pick(['votes', 'newest', 'posted']) : 'relevance',
      },
      banned: false,
      deleted: false,
    });
  }
  // Authors by activity rank: a few very active users, a long tail.
  const rankToUser = users.map((u) => u.key);
  for (let i = rankToUser.length - 1; i > 0; i--) {
    const j = Math.floor(rand.next() * (i + 1));
    [rankToUser[i], rankToUser[j]] = [rankToUser[j], rankToUser[i]];
  }
  const author = zipf(rand, U, 0.8);
  const pickAuthor = () => rankToUser[author()];
  const heavy = users[rankToUser[0] - 1];
  const viewer = users[rankToUser[Math.min(20, U - 1)] - 1];
  for (const u of [heavy, viewer])
    u.settings = { historyVisibility: 'everyone', collapseOldComments: true, defaultCommentOrder: 'relevance' };
  const special = new Set([1, heavy.key, viewer.key]);
  for (const u of users) {
    if (special.has(u.key)) continue;
    if (rand.chance(0.005)) u.banned = true;
    else if (rand.chance(0.003)) u.deleted = true;
  }
  const otherUser = (not) => {
    for (;;) {
      const k = rand.int(1, U);
      if (k !== not) return k;
    }
  };

  const groups = GROUP_PATHS.slice(0, spec.groups).map((p, i) => ({
    path: p,
    description: `All about ${p.replace(/\./g, ' / ')}.`,
    createdAt: start - 500 * DAY + i * MIN,
  }));

  const events = [];
  let seq = 0;
  const at = (t, e) => events.push({ t: Math.round(t), seq: seq++, ...e });
  for (const u of users) {
    at(u.createdAt, { type: 'user', user: u.key });
    const s = u.settings;
    if (s.historyVisibility !== 'everyone' || !s.collapseOldComments || s.defaultCommentOrder !== 'relevance')
      at(u.createdAt + 1000, { type: 'settings', user: u.key });
  }
  for (const g of groups) at(g.createdAt, { type: 'group', path: g.path });

  // Topics, spread over the window in posting order.
  const T = spec.topics;
  const topicTimes = [];
  for (let i = 0; i < T; i++) topicTimes.push(start + rand.next() * (spec.end - start - 2 * DAY));
  topicTimes.sort((a, b) => a - b);
  const bigIndex = Math.floor(T * 0.9);
  const topics = topicTimes.map((t, i) => {
    const isLink = rand.chance(0.3);
    const tags = [];
    for (let k = rand.count(1.6, 5); k > 0; k--) tags.push(rand.pick(TAGS));
    if (rand.chance(0.05)) tags.push(rand.pick(TAGS).toUpperCase().replace(/ /g, '_'));
    return {
      key: i,
      t,
      author: i === bigIndex ? heavy.key : pickAuthor(),
      group: rand.pick(groups).path,
      title: title(rand),
      markdown: isLink ? '' : markdown(rand, 5, 220),
      link: isLink
        ? `${rand.pick(SITES)}${crypto.createHash('md5').update(String(i)).digest('hex').slice(0, 10)}`
        : null,
      tags,
      lastEvent: t,
    };
  });
  const big = topics[bigIndex];
  for (const tp of topics) at(tp.t, { type: 'topic', topic: tp.key, user: tp.author });

  // Comments: the big topic's tree, then the rest spread over the topics by a heavy-tailed weight.
  const C = spec.comments;
  const perTopic = topics.map(() => []);
  const weights = topics.map((tp) => (tp === big ? 0 : Math.min(60, Math.pow(1 - rand.next(), -0.75))));
  const cum = [];
  let wsum = 0;
  for (const w of weights) cum.push((wsum += w));
  const pickTopic = () => {
    const x = rand.next() * wsum;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const bigCount = Math.min(spec.bigTopicComments, C);
  for (let i = 0; i < C - bigCount; i++) perTopic[pickTopic()].push(null);
  for (let i = 0; i < bigCount; i++) perTopic[big.key].push(null);

  const comments = [];
  for (const tp of topics) {
    const n = perTopic[tp.key].length;
    if (n === 0) continue;
    const isBig = tp === big;
    const span = Math.min(spec.end - tp.t - HOUR, isBig ? 10 * DAY : 4 * DAY);
    const times = [];
    for (let i = 0; i < n; i++)
      times.push(tp.t + MIN + (isBig ? rand.next() * span : Math.min(span, rand.exp(span / 5))));
    times.sort((a, b) => a - b);
    const list = [];
    let chainEnd = null;
    for (let i = 0; i < n; i++) {
      let parent = null;
      const r = rand.next();
      if (i > 0) {
        if (isBig) {
          // One long back-and-forth thread (deep), many top-level comments and sub-threads (wide).
          if (r < 0.04) parent = chainEnd;
          else if (r < 0.12) parent = null;
          else if (r < 0.53) parent = list[i - 1];
          else if (r < 0.7) parent = list[Math.max(0, i - 1 - rand.int(0, 19))];
          else parent = list[rand.int(0, i - 1)];
        } else if (r >= 0.35) parent = r < 0.7 ? list[i - 1] : list[rand.int(0, i - 1)];
      }
      // A reply is never older than what it answers.
      const t = Math.max(times[i], (parent ? parent.t : tp.t) + 1000 + rand.int(0, 59_000));
      const c = {
        key: comments.length,
        topic: tp.key,
        parent: parent ? parent.key : null,
        author: isBig && rand.chance(0.01) ? viewer.key : pickAuthor(),
        t,
        markdown: markdown(rand, 2, rand.chance(0.1) ? 160 : 45),
        lastEvent: t,
      };
      list.push(c);
      comments.push(c);
      if (isBig && (r < 0.04 || chainEnd === null)) chainEnd = c;
      if (parent) comments[parent.key].lastEvent = Math.max(comments[parent.key].lastEvent, t);
      tp.lastEvent = Math.max(tp.lastEvent, t);
    }
  }
  for (const c of comments) {
    // A visit just before posting (what a reader does), for some comments.
    if (rand.chance(0.25)) at(c.t - 30_000, { type: 'visit', topic: c.topic, user: c.author });
    at(c.t, { type: 'comment', comment: c.key, user: c.author });
  }

  // Votes, bookmarks, labels and edits on comments; then deletions/removals after all of them.
  const LABEL_KINDS = ['exemplary', 'exemplary', 'noise', 'noise', 'offtopic', 'joke', 'joke', 'malice'];
  for (const c of comments) {
    const after = (max) => c.t + 1000 + rand.next() * max;
    const voters = new Set();
    for (let k = rand.count(1.0, 40); k > 0; k--) voters.add(otherUser(c.author));
    for (const v of voters) {
      const t = after(2 * DAY);
      at(t, { type: 'vote', kind: 'comment', comment: c.key, user: v });
      c.lastEvent = Math.max(c.lastEvent, t);
    }
    if (rand.chance(0.01)) {
      const t = after(DAY);
      at(t, { type: 'bookmark', kind: 'comment', comment: c.key, user: otherUser(c.author) });
      c.lastEvent = Math.max(c.lastEvent, t);
    }
    if (rand.chance(0.03)) {
      const labelled = new Set();
      for (let k = rand.int(1, 3); k > 0; k--) {
        const label = rand.pick(LABEL_KINDS);
        const user = otherUser(c.author);
        if (labelled.has(`${user}:${label}`)) continue;
        labelled.add(`${user}:${label}`);
        const t = after(DAY);
        at(t, { type: 'label', comment: c.key, user, label, reason: label === 'exemplary' ? sentence(rand, 5) : null });
        c.lastEvent = Math.max(c.lastEvent, t);
      }
    }
    if (rand.chance(0.04)) {
      const t = after(rand.chance(0.3) ? 3 * MIN : 2 * DAY);
      at(t, {
        type: 'commentEdit',
        comment: c.key,
        user: c.author,
        markdown: `${c.markdown}\n\nEdit: ${sentence(rand, 6)}`,
      });
      c.lastEvent = Math.max(c.lastEvent, t);
    }
  }
  // Topic votes, bookmarks, edits, ignores.
  const viewerIgnores = new Set();
  for (const tp of topics) {
    const voters = new Set();
    for (let k = rand.count(5, 80); k > 0; k--) voters.add(otherUser(tp.author));
    for (const v of voters)
      at(tp.t + 1000 + rand.next() * 5 * DAY, { type: 'vote', kind: 'topic', topic: tp.key, user: v });
    for (let k = rand.count(0.3, 5); k > 0; k--)
      at(tp.t + 1000 + rand.next() * 5 * DAY, {
        type: 'bookmark',
        kind: 'topic',
        topic: tp.key,
        user: otherUser(tp.author),
      });
    if (tp.markdown && rand.chance(0.04))
      at(tp.t + (rand.chance(0.3) ? 2 * MIN : rand.next() * 3 * DAY), {
        type: 'topicEdit',
        topic: tp.key,
        user: tp.author,
        markdown: `${tp.markdown}\n\nUpdate: ${sentence(rand, 8)}`,
      });
    if (rand.chance(0.05))
      at(tp.t + rand.next() * 3 * DAY, { type: 'ignore', topic: tp.key, user: otherUser(tp.author) });
  }
  // The bench viewer: votes and bookmarks on the big topic and recent topics, a visit to the big
  // topic halfway through its comments, a few ignored topics among the most active ones.
  const bigComments = comments.filter((c) => c.topic === big.key);
  const mid = bigComments[Math.floor(bigComments.length / 2)].t;
  at(mid, { type: 'visit', topic: big.key, user: viewer.key });
  for (const c of bigComments) {
    if (c.author === viewer.key) continue;
    if (rand.chance(0.03)) at(c.t + MIN, { type: 'vote', kind: 'comment', comment: c.key, user: viewer.key });
    if (rand.chance(0.004)) at(c.t + 2 * MIN, { type: 'bookmark', kind: 'comment', comment: c.key, user: viewer.key });
    c.lastEvent = Math.max(c.lastEvent, c.t + 2 * MIN);
  }
  const recent = [...topics].sort((a, b) => b.lastEvent - a.lastEvent).slice(0, 400);
  for (const tp of recent) {
    if (tp.author === viewer.key) continue;
    if (viewerIgnores.size < 15 && rand.chance(0.05)) {
      viewerIgnores.add(tp.key);
      at(tp.t + HOUR, { type: 'ignore', topic: tp.key, user: viewer.key });
    } else if (rand.chance(0.1)) at(tp.t + 2 * HOUR, { type: 'vote', kind: 'topic', topic: tp.key, user: viewer.key });
    else if (rand.chance(0.03))
      at(tp.t + 3 * HOUR, { type: 'bookmark', kind: 'topic', topic: tp.key, user: viewer.key });
    if (rand.chance(0.2))
      at(Math.max(tp.t + MIN, tp.lastEvent - rand.next() * DAY), { type: 'visit', topic: tp.key, user: viewer.key });
  }

  for (const c of comments) {
    const r = rand.next();
    if (r < 0.02) at(c.lastEvent + rand.int(1, 600) * MIN, { type: 'commentDelete', comment: c.key, user: c.author });
    else if (r < 0.025) at(c.lastEvent + rand.int(1, 600) * MIN, { type: 'commentRemove', comment: c.key, user: 1 });
  }

  // Closing phase, after all activity: topic deletions, removals, locks, officials; bans, deletions.
  let last = 0;
  for (const e of events) last = Math.max(last, e.t);
  let t = last + MIN;
  for (const tp of topics) {
    if (tp === big) continue;
    const r = rand.next();
    if (r < 0.02) at((t += 1000), { type: 'topicDelete', topic: tp.key, user: tp.author });
    else if (r < 0.025) at((t += 1000), { type: 'topicRemove', topic: tp.key, user: 1 });
    if (r < 0.02) continue;
    if (rand.chance(0.01)) at((t += 1000), { type: 'lock', topic: tp.key, user: 1 });
    if (rand.chance(0.01)) at((t += 1000), { type: 'official', topic: tp.key, user: 1 });
  }
  for (const u of users) {
    if (u.banned) at((t += 1000), { type: 'ban', user: u.key });
    if (u.deleted) at((t += 1000), { type: 'deleteAccount', user: u.key });
  }
  events.sort((a, b) => a.t - b.t || a.seq - b.seq);
  return { spec, users, groups, topics, comments, events, bigTopic: big.key, heavyUser: heavy.key, viewer: viewer.key };
}

// ---------------------------------------------------------------------------------------------
// simulate: the documents the services would write for the plan

function rules() {
  return {
    renderMarkdown: requireDist('discussion/rules/markdown.js').renderMarkdown,
    countWords: requireDist('discussion/rules/text.js').countWords,
    normalizeTags: requireDist('discussion/rules/tags.js').normalizeTags,
    tagMatchKeys: requireDist('discussion/rules/tags.js').tagMatchKeys,
    isInteresting: requireDist('discussion/rules/labels.js').isInteresting,
    newTopicDocument: requireDist('discussion/new-documents.js').newTopicDocument,
    newCommentDocument: requireDist('discussion/new-documents.js').newCommentDocument,
  };
}

const EDIT_GRACE_MS = 5 * MIN;

function simulate(plan, hashes) {
  const R = rules();
  const users = new Map();
  const groups = [];
  const topicByKey = new Map();
  const commentByKey = new Map();
  const marks = new Map();
  const labels = [];
  const counters = { user: 0, topic: 0, comment: 0 };
  const mark = (userId, kind, postId, topicId) => {
    const k = `${userId}:${kind}:${postId}`;
    let m = marks.get(k);
    if (!m) {
      // An upsert writes the filter's fields, the $set and the defaults that are not null.
      m = { userId, kind, postId, topicId, voted: false, bookmarked: false };
      marks.set(k, m);
    }
    return m;
  };
  const planUser = new Map(plan.users.map((u) => [u.key, u]));
  const recompute = (topic) => {
    let latest = null;
    for (const c of topic.comments)
      if (c.interesting && (latest === null || c.createdAt > latest)) latest = c.createdAt;
    const at = latest && latest.getTime() > topic.createdAt.getTime() ? latest : topic.createdAt;
    topic.lastInterestingActivityAt = at;
  };
  const refresh = (c) => {
    const now = R.isInteresting({
      deleted: c.deleted,
      removed: c.removed,
      labelWeights: c.labelWeights,
      votes: c.voteCount,
    });
    if (now === c.interesting) return;
    c.interesting = now;
    recompute(topicByKey.get(c.topicKey));
  };
  const max = (a, b) => (b.getTime() > a.getTime() ? b : a);

  for (const e of plan.events) {
    const now = new Date(e.t);
    switch (e.type) {
      case 'user': {
        const u = planUser.get(e.user);
        users.set(u.key, {
          _id: ++counters.user,
          username: u.username,
          usernameLower: u.username.toLowerCase(),
          passwordHash: hashes[(counters.user - 1) % hashes.length],
          isAdmin: u.isAdmin,
          banned: false,
          deleted: false,
          tokenVersion: 0,
          settings: { historyVisibility: 'everyone', collapseOldComments: true, defaultCommentOrder: 'relevance' },
          ignoredTopicIds: [],
          createdAt: now,
        });
        break;
      }
      case 'settings':
        users.get(e.user).settings = { ...planUser.get(e.user).settings };
        break;
      case 'group': {
        const g = plan.groups.find((x) => x.path === e.path);
        groups.push({ _id: g.path, description: g.description, createdAt: now });
        break;
      }
      case 'topic': {
        const p = plan.topics[e.topic];
        const u = users.get(e.user);
        const tags = R.normalizeTags(p.tags).tags;
        const doc = {
          _id: ++counters.topic,
          ...R.newTopicDocument(
            {
              groupPath: p.group,
              author: { id: u._id, username: u.username },
              title: p.title,
              markdown: p.markdown,
              link: p.link,
              tags,
            },
            now,
          ),
        };
        Object.defineProperty(doc, 'comments', { value: [], enumerable: false });
        topicByKey.set(e.topic, doc);
        break;
      }
      case 'topicEdit': {
        const t = topicByKey.get(e.topic);
        t.markdown = e.markdown;
        t.html = R.renderMarkdown(e.markdown);
        t.wordCount = R.countWords(t.html);
        if (now.getTime() - t.createdAt.getTime() > EDIT_GRACE_MS) t.editedAt = now;
        break;
      }
      case 'comment': {
        const p = plan.comments[e.comment];
        const topic = topicByKey.get(p.topic);
        const u = users.get(e.user);
        const parent = p.parent === null ? null : commentByKey.get(p.parent);
        const doc = {
          _id: ++counters.comment,
          ...R.newCommentDocument(
            {
              topic: { id: topic._id, authorId: topic.authorId },
              parentId: parent ? parent._id : null,
              author: { id: u._id, username: u.username },
              markdown: p.markdown,
              depth: parent ? parent.depth + 1 : 0,
            },
            now,
          ),
        };
        Object.defineProperty(doc, 'topicKey', { value: p.topic, enumerable: false });
        commentByKey.set(e.comment, doc);
        topic.comments.push(doc);
        topic.commentCount += 1;
        // Every post raises it, and nothing lowers it (the comment cache's key, comment-cache.ts).
        topic.commentPosts = (topic.commentPosts ?? 0) + 1;
        topic.lastActivityAt = max(topic.lastActivityAt, now);
        topic.lastInterestingActivityAt = max(topic.lastInterestingActivityAt, now);
        break;
      }
      case 'commentEdit': {
        const c = commentByKey.get(e.comment);
        c.markdown = e.markdown;
        c.html = R.renderMarkdown(e.markdown);
        if (now.getTime() - c.createdAt.getTime() > EDIT_GRACE_MS) c.editedAt = now;
        const topic = topicByKey.get(c.topicKey);
        topic.lastActivityAt = max(topic.lastActivityAt, now);
        break;
      }
      case 'commentDelete':
      case 'commentRemove': {
        const c = commentByKey.get(e.comment);
        const topic = topicByKey.get(c.topicKey);
        if (e.type === 'commentDelete') Object.assign(c, { deleted: true, interesting: false, markdown: '', html: '' });
        else Object.assign(c, { removed: true, interesting: false });
        topic.commentCount -= 1;
        topic.lastActivityAt = max(topic.lastActivityAt, now);
        recompute(topic);
        break;
      }
      case 'vote':
      case 'bookmark': {
        const u = users.get(e.user);
        const flag = e.type === 'vote' ? 'voted' : 'bookmarked';
        const stamp = e.type === 'vote' ? 'votedAt' : 'bookmarkedAt';
        if (e.kind === 'topic') {
          const t = topicByKey.get(e.topic);
          const m = mark(u._id, 'topic', t._id, t._id);
          if (m[flag]) break;
          m[flag] = true;
          m[stamp] = now;
          if (flag === 'voted') t.voteCount += 1;
        } else {
          const c = commentByKey.get(e.comment);
          const m = mark(u._id, 'comment', c._id, c.topicId);
          if (m[flag]) break;
          m[flag] = true;
          m[stamp] = now;
          if (flag === 'voted') {
            c.voteCount += 1;
            refresh(c);
          }
        }
        break;
      }
      case 'label': {
        const c = commentByKey.get(e.comment);
        const u = users.get(e.user);
        labels.push({
          commentId: c._id,
          topicId: c.topicId,
          userId: u._id,
          label: e.label,
          weight: 1,
          reason: e.reason,
          createdAt: now,
        });
        c.labelWeights[e.label] += 1;
        refresh(c);
        break;
      }
      case 'visit': {
        const t = topicByKey.get(e.topic);
        const m = mark(users.get(e.user)._id, 'topic', t._id, t._id);
        m.visitAt = now;
        m.visitCommentCount = t.commentCount;
        break;
      }
      case 'ignore': {
        const u = users.get(e.user);
        const id = topicByKey.get(e.topic)._id;
        if (!u.ignoredTopicIds.includes(id)) u.ignoredTopicIds.push(id);
        break;
      }
      case 'topicDelete':
        Object.assign(topicByKey.get(e.topic), { deleted: true, listed: false });
        break;
      case 'topicRemove':
        Object.assign(topicByKey.get(e.topic), { removed: true, listed: false });
        break;
      case 'lock':
        topicByKey.get(e.topic).locked = true;
        break;
      case 'official':
        topicByKey.get(e.topic).official = true;
        break;
      case 'ban':
        users.get(e.user).banned = true;
        break;
      case 'deleteAccount': {
        const u = users.get(e.user);
        u.deleted = true;
        u.tokenVersion += 1;
        break;
      }
      default:
        throw new Error(`unknown event ${e.type}`);
    }
  }
  const topics = [...topicByKey.values()].sort((a, b) => a._id - b._id);
  const comments = [...commentByKey.values()].sort((a, b) => a._id - b._id);
  return {
    users: [...users.values()],
    groups,
    topics,
    comments,
    marks: [...marks.values()],
    labels,
    counters: [
      { _id: 'user', seq: counters.user },
      { _id: 'topic', seq: counters.topic },
      { _id: 'comment', seq: counters.comment },
    ],
    ids: {
      bigTopic: topicByKey.get(plan.bigTopic)._id,
      heavyUser: users.get(plan.heavyUser).username,
      viewer: users.get(plan.viewer).username,
    },
  };
}

async function passwordHashes(n) {
  const { hashPassword } = requireDist('discussion/auth/password.js');
  return Promise.all(Array.from({ length: n }, () => hashPassword(PASSWORD)));
}

// ---------------------------------------------------------------------------------------------
// Writing the documents (bulk) and the replay check (services)

async function connect(uri) {
  const { Database } = requireDist('db/connection.js');
  const { discussionModels } = requireDist('discussion/models.js');
  const db = await Database.connect(uri, { serverSelectionTimeoutMS: 30_000 });
  return { db, models: discussionModels(db) };
}

async function insertAll(models, docs, log) {
  const plan = [
    ['Counter', docs.counters],
    ['User', docs.users],
    ['Group', docs.groups],
    ['Topic', docs.topics],
    ['Comment', docs.comments],
    ['Mark', docs.marks],
    ['Label', docs.labels],
  ];
  for (const [name, list] of plan) {
    const started = Date.now();
    for (let i = 0; i < list.length; i += 2000) {
      await models[name].insertMany(list.slice(i, i + 2000), { lean: true, ordered: true });
    }
    log(`inserted ${list.length} ${name.toLowerCase()} documents in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

function summarize(docs) {
  const big = docs.topics.find((t) => t._id === docs.ids.bigTopic);
  const bigComments = docs.comments.filter((c) => c.topicId === big._id);
  const depth = new Map();
  let maxDepth = 0;
  let roots = 0;
  for (const c of bigComments) {
    const d = c.parentId === null ? 0 : depth.get(c.parentId) + 1;
    depth.set(c._id, d);
    if (d === 0) roots++;
    maxDepth = Math.max(maxDepth, d);
  }
  return {
    users: docs.users.length,
    groups: docs.groups.length,
    topics: docs.topics.length,
    comments: docs.comments.length,
    marks: docs.marks.length,
    votes: docs.marks.filter((m) => m.voted).length,
    bookmarks: docs.marks.filter((m) => m.bookmarked).length,
    visits: docs.marks.filter((m) => m.visitAt).length,
    labels: docs.labels.length,
    bigTopic: {
      id: big._id,
      id36: big._id.toString(36),
      comments: bigComments.length,
      commentCount: big.commentCount,
      topLevel: roots,
      maxDepth,
    },
  };
}

/** Strips what legitimately differs between a bulk document and a service-written one. */
function normalize(doc) {
  const o = JSON.parse(JSON.stringify(doc));
  if (o._id && typeof o._id === 'object') delete o._id;
  if (typeof o._id === 'string' && /^[0-9a-f]{24}$/.test(o._id)) delete o._id;
  delete o.passwordHash;
  delete o.__v;
  const sorted = {};
  for (const k of Object.keys(o).sort()) sorted[k] = o[k];
  return JSON.stringify(sorted);
}

async function replay(plan, services) {
  // A service set with a clock of its own, set to each event's time (the server's clock cannot be set).
  const { SettableClock } = requireDist('discussion/clock.js');
  const clock = new SettableClock();
  const d = services.discussion.withClock(clock);
  const { SYSTEM } = requireDist('discussion/services.js');
  const actors = new Map();
  const ids = { topic: new Map(), comment: new Map() };
  const actor = (key) => actors.get(key);
  for (const e of plan.events) {
    clock.set(new Date(e.t));
    const a = actor(e.user);
    switch (e.type) {
      case 'user': {
        const u = plan.users[e.user - 1];
        const v = await d.users.create(SYSTEM, { username: u.username, password: PASSWORD, isAdmin: u.isAdmin });
        actors.set(e.user, { kind: 'user', userId: v.id, username: v.username, isAdmin: u.isAdmin });
        break;
      }
      case 'settings':
        await d.users.updateSettings(a, plan.users[e.user - 1].settings);
        break;
      case 'group': {
        const g = plan.groups.find((x) => x.path === e.path);
        await d.groups.create(SYSTEM, { path: g.path, description: g.description });
        break;
      }
      case 'topic': {
        const p = plan.topics[e.topic];
        const v = await d.topics.post(a, {
          group: p.group,
          title: p.title,
          markdown: p.markdown || null,
          link: p.link,
          tags: p.tags,
        });
        ids.topic.set(e.topic, v.id);
        break;
      }
      case 'topicEdit':
        await d.topics.edit(a, ids.topic.get(e.topic), { markdown: e.markdown });
        break;
      case 'comment': {
        const p = plan.comments[e.comment];
        const v = await d.comments.post(a, {
          topicId: ids.topic.get(p.topic),
          parentId: p.parent === null ? null : ids.comment.get(p.parent),
          markdown: p.markdown,
        });
        ids.comment.set(e.comment, v.id);
        break;
      }
      case 'commentEdit':
        await d.comments.edit(a, ids.comment.get(e.comment), e.markdown);
        break;
      case 'commentDelete':
        await d.comments.delete(a, ids.comment.get(e.comment));
        break;
      case 'commentRemove':
        await d.comments.remove(a, ids.comment.get(e.comment));
        break;
      case 'vote':
      case 'bookmark': {
        const ref = e.kind === 'topic' ? ids.topic.get(e.topic) : ids.comment.get(e.comment);
        if (e.type === 'vote') await d.votes.vote(a, e.kind, ref);
        else await d.bookmarks.bookmark(a, e.kind, ref);
        break;
      }
      case 'label':
        await d.labels.label(a, ids.comment.get(e.comment), e.label, e.reason);
        break;
      case 'visit':
        await d.visits.record(a, ids.topic.get(e.topic));
        break;
      case 'ignore':
        await d.ignores.ignore(a, ids.topic.get(e.topic));
        break;
      case 'topicDelete':
        await d.topics.delete(a, ids.topic.get(e.topic));
        break;
      case 'topicRemove':
        await d.topics.remove(a, ids.topic.get(e.topic));
        break;
      case 'lock':
        await d.topics.setLocked(a, ids.topic.get(e.topic), true);
        break;
      case 'official':
        await d.topics.setOfficial(a, ids.topic.get(e.topic), true);
        break;
      case 'ban':
        await d.users.ban(SYSTEM, plan.users[e.user - 1].username);
        break;
      case 'deleteAccount':
        await d.users.deleteAccount(a, PASSWORD);
        break;
      default:
        throw new Error(`unknown event ${e.type}`);
    }
  }
}

/** The small plan the replay check uses: same generator, every kind of event, a deep tree. */
const VERIFY_SPEC = Object.freeze({
  users: 25,
  groups: 4,
  topics: 24,
  comments: 320,
  bigTopicComments: 150,
  end: DATASET.end,
  seed: 7,
});

/**
 * Replays VERIFY_SPEC through the services into `uri` (a scratch database, dropped first) and
 * compares every collection with simulate(); throws listing the first differences.
 */
async function verifyAgainstServices(uri, log = () => {}) {
  const { loadConfig } = requireDist('config/index.js');
  const { createAgora } = requireDist('server.js');
  const plan = makePlan(VERIFY_SPEC);
  const expected = simulate(plan, ['unused']);
  // A data directory of its own (the files store's), removed when the check ends.
  const dataDir = tempDir('agora-seed-verify-');
  let agora;
  try {
    const config = loadConfig({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MONGODB_URI: uri,
      DATA_DIR: dataDir,
      DEMO_SEED: 'false',
      LOG_LEVEL: 'silent',
    });
    agora = await createAgora(config, {
      mongoUri: uri,
      databaseKind: 'bench',
      jwtSecret: 'x'.repeat(40),
      logger: false,
      processMetrics: false,
    });
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  try {
    await agora.db.dropDatabase();
    await agora.db.syncIndexes();
    const started = Date.now();
    await replay(plan, agora.services);
    const { discussionModels } = requireDist('discussion/models.js');
    const m = discussionModels(agora.db);
    const problems = [];
    const compare = async (name, model, docs, key) => {
      const actual = await model.find({}).lean().exec();
      const want = new Map(docs.map((x) => [key(x), normalize(x)]));
      const got = new Map(actual.map((x) => [key(x), normalize(x)]));
      if (want.size !== got.size) problems.push(`${name}: ${got.size} documents, expected ${want.size}`);
      for (const [k, v] of want) {
        if (got.get(k) !== v) problems.push(`${name} ${k}:\n    services: ${got.get(k)}\n    seed:     ${v}`);
        if (problems.length > 8) break;
      }
    };
    await compare('counters', m.Counter, expected.counters, (x) => x._id);
    await compare('users', m.User, expected.users, (x) => x._id);
    await compare('groups', m.Group, expected.groups, (x) => x._id);
    await compare('topics', m.Topic, expected.topics, (x) => x._id);
    await compare('comments', m.Comment, expected.comments, (x) => x._id);
    await compare('marks', m.Mark, expected.marks, (x) => `${x.userId}:${x.kind}:${x.postId}`);
    await compare('labels', m.Label, expected.labels, (x) => `${x.commentId}:${x.userId}:${x.label}`);
    if (problems.length > 0)
      throw new Error(`seeded documents differ from what the services write:\n  ${problems.slice(0, 8).join('\n  ')}`);
    const s = summarize(expected);
    log(
      `verified: ${plan.events.length} events replayed through the services in ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s give exactly the seeded documents (${s.topics} ` +
        `topics, ${s.comments} comments, ${s.marks} marks, ${s.labels} labels)`,
    );
    await agora.db.dropDatabase();
  } finally {
    await agora.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Seeds DATASET into `uri` (dropped first); returns the manifest. */
async function seedInto(uri, log = () => {}) {
  let started = Date.now();
  const plan = makePlan(DATASET);
  const docs = simulate(plan, await passwordHashes(8));
  const summary = summarize(docs);
  log(
    `generated ${plan.events.length} events → documents in ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(summary)}`,
  );
  const { db, models } = await connect(uri);
  try {
    await db.dropDatabase();
    started = Date.now();
    await insertAll(models, docs, log);
    await db.syncIndexes();
    log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s (indexes included)`);
  } finally {
    await db.close();
  }
  // A small visible topic for the bounds check (commands per request must not depend on tree size).
  const small = docs.topics.find((t) => t.listed && t.commentCount >= 3 && t.commentCount <= 10);
  return {
    version: DATASET.version,
    dbName: DB_NAME,
    password: PASSWORD,
    ...docs.ids,
    bigTopic36: docs.ids.bigTopic.toString(36),
    smallTopic36: small._id.toString(36),
    summary,
  };
}

// ---------------------------------------------------------------------------------------------
// The cache (FerretDB): seed once into a staging directory, copy the SQLite files into each run

function cacheRoot() {
  const { loadConfig } = requireDist('config/index.js');
  return path.join(
    loadConfig({ ...process.env, DATA_DIR: os.tmpdir() }).database.cacheDir,
    `bench-dataset-v${DATASET.version}`,
  );
}

function copySqlite(fromDir, toDir) {
  fs.mkdirSync(toDir, { recursive: true });
  for (const f of fs.readdirSync(fromDir))
    if (f.startsWith(`${DB_NAME}.sqlite`)) fs.copyFileSync(path.join(fromDir, f), path.join(toDir, f));
}

/**
 * Makes `dataDir` hold the seeded dataset before its database starts. With FerretDB (or a
 * database not yet known) the cached SQLite files are copied in, seeding them first when there
 * is no cache. Returns the manifest, or null when the database must be seeded in place
 * (MONGODB_URI / mongod: see seedInPlace).
 */
async function prepareDataDir(dataDir, log) {
  const { loadConfig } = requireDist('config/index.js');
  const cfg = loadConfig({ ...process.env, DATA_DIR: dataDir }).database;
  const { whichSync } = requireDist('db/server-process.js');
  if (cfg.uri || cfg.mongodBin || whichSync('mongod', cfg.searchPath)) return null;
  const root = cacheRoot();
  const manifestFile = path.join(root, 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    log(`no cached dataset v${DATASET.version} in ${root}: seeding it once (a few minutes)`);
    const staging = tempDir('agora-bench-seed-');
    const db = await startDatabase(path.join(staging, 'data'));
    if (db.kind !== 'ferretdb') {
      await db.stop();
      fs.rmSync(staging, { recursive: true, force: true });
      return null;
    }
    let manifest;
    try {
      await verifyAgainstServices(`${db.uri}/agora_bench_verify`, log);
      manifest = await seedInto(`${db.uri}/${DB_NAME}`, log);
    } finally {
      await db.stop();
    }
    fs.rmSync(path.join(root), { recursive: true, force: true });
    copySqlite(path.join(staging, 'data', 'db', 'ferretdb'), path.join(root, 'ferretdb'));
    fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    fs.rmSync(staging, { recursive: true, force: true });
  }
  copySqlite(path.join(root, 'ferretdb'), path.join(dataDir, 'db', 'ferretdb'));
  return JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
}

/** Seeds a database that cannot be prepared as files (MongoDB): verify, then bulk insert. */
async function seedInPlace(baseUri, log) {
  await verifyAgainstServices(`${baseUri}/agora_bench_verify`, log);
  return seedInto(`${baseUri}/${DB_NAME}`, log);
}

module.exports = {
  DATASET,
  DB_NAME,
  PASSWORD,
  makePlan,
  simulate,
  summarize,
  seedInto,
  verifyAgainstServices,
  prepareDataDir,
  seedInPlace,
  cacheRoot,
};

if (require.main === module) {
  const args = process.argv.slice(2);
  const log = (m) => process.stderr.write(`[seed] ${m}\n`);
  (async () => {
    const uriArg = args.includes('--uri') ? args[args.indexOf('--uri') + 1] : undefined;
    if (uriArg) {
      if (args.includes('--verify'))
        await verifyAgainstServices(uriArg.replace(/\/[^/]*$/, '/agora_bench_verify'), log);
      const manifest = await seedInto(uriArg, log);
      process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
      return;
    }
    const work = tempDir('agora-seed-');
    const db = await startDatabase(path.join(work, 'data'));
    try {
      if (args.includes('--verify')) await verifyAgainstServices(`${db.uri}/agora_bench_verify`, log);
      if (args.includes('--stats')) {
        const plan = makePlan(DATASET);
        log(JSON.stringify(summarize(simulate(plan, ['x']))));
      }
    } finally {
      await db.stop();
      fs.rmSync(work, { recursive: true, force: true });
    }
  })().catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}
