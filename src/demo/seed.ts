/**
 * A small demo dataset, written through the discussion services (so every rule and counter is
 * right): groups, a few users, topics with threaded comments, votes, labels, bookmarks and tags,
 * spread over the last three days. The server seeds it into an empty embedded database at start;
 * `npm run cli -- demo:seed` adds it on demand.
 */
import type { Actor } from '../core/actor';
import type { Database } from '../db/connection';
import { SettableClock } from '../discussion/clock';
import { SYSTEM } from '../discussion/services';
import type { DiscussionServiceSet } from '../discussion/services';
import type { CommentView, TopicView, UserView } from '../discussion/views';
import type { Services } from '../services';

/** The demo accounts (also named in the README). */
export const DEMO_ADMIN = { username: 'admin', password: 'demo-admin-password' } as const;
export const DEMO_USERS = ['alice', 'bob', 'carol', 'dave'] as const;
export const DEMO_PASSWORD = 'demo-password';

export interface SeedDeps {
  services: Services;
  db: Database;
  log?: { info(msg: string): void; warn(obj: unknown, msg?: string): void };
}

export interface SeedSummary {
  users: number;
  groups: number;
  topics: number;
  comments: number;
}

type Who = 'admin' | (typeof DEMO_USERS)[number];

interface DemoComment {
  by: Who;
  /** Hours after the topic was posted. */
  at: number;
  text: string;
  votes?: Who[];
  labels?: { by: Who; label: 'exemplary' | 'noise' | 'offtopic' | 'joke'; reason?: string }[];
  replies?: DemoComment[];
}

interface DemoTopic {
  by: Who;
  group: string;
  /** Hours before now. */
  ago: number;
  title: string;
  markdown?: string;
  link?: string;
  tags: string[];
  votes?: Who[];
  bookmarks?: Who[];
  official?: boolean;
  comments?: DemoComment[];
  /** Visits recorded among the comments (hours after the topic was posted), so later ones count as new. */
  visits?: { by: Who; at: number }[];
}

const GROUPS = [
  { path: 'tech', description: 'Technology, software and the web.' },
  { path: 'games', description: 'Video games, board games and everything in between.' },
  { path: 'games.tabletop', description: 'Board games, card games and role-playing games.' },
  { path: 'music', description: 'Listening, playing and talking about music.' },
  { path: 'science', description: 'Research, discoveries and how the world works.' },
];

/** The first topic has the deepest thread: the GraphiQL examples open it (id "1"). */
const TOPICS: DemoTopic[] = [
  {
    by: 'alice',
    group: 'games.tabletop',
    ago: 70,
    title: 'Which board games work well with two players?',
    markdown: 'Looking for suggestions, ideally games that play well with **two**. We already love *Patchwork*.',
    tags: ['ask.recommendations', 'two player'],
    votes: ['bob', 'carol', 'dave', 'admin'],
    bookmarks: ['bob'],
    // bob read the topic before its latest comments: they show as new for him (README).
    visits: [{ by: 'bob', at: 4.5 }],
    comments: [
      {
        by: 'carol',
        at: 1,
        text: 'Jaipur is excellent with two: quick, tense, and easy to teach.',
        votes: ['alice', 'bob', 'dave'],
        labels: [{ by: 'bob', label: 'exemplary', reason: 'Clear recommendation with reasons' }],
        replies: [
          {
            by: 'alice',
            at: 2,
            text: 'Thanks, ordering it. Is the card quality good?',
            votes: ['carol'],
            replies: [
              {
                by: 'carol',
                at: 3,
                text: 'Very good, and the box has a proper insert.',
                replies: [
                  { by: 'dave', at: 5, text: 'Sleeve them anyway, they see a lot of shuffling.', votes: ['carol'] },
                ],
              },
            ],
          },
          { by: 'bob', at: 4, text: 'Seconded. Lost Cities is in the same spirit.', votes: ['alice'] },
        ],
      },
      {
        by: 'dave',
        at: 2,
        text: 'Monopoly, obviously.',
        votes: ['bob'],
        labels: [{ by: 'alice', label: 'joke' }],
        replies: [
          { by: 'bob', at: 2.5, text: 'Only if you want to stay single.', labels: [{ by: 'alice', label: 'joke' }] },
        ],
      },
      { by: 'bob', at: 6, text: '7 Wonders Duel. It is the best two-player game I know.', votes: ['alice', 'carol'] },
    ],
  },
  {
    by: 'bob',
    group: 'tech',
    ago: 50,
    title: "What's your backup strategy?",
    markdown:
      'I use `restic` to an external drive and a remote server.\n\n' +
      'What do you use, and how often do you **test restores**?',
    tags: ['ask.survey', 'backups'],
    votes: ['alice', 'carol'],
    comments: [
      {
        by: 'alice',
        at: 1,
        text: 'Borg to a NAS every night, plus an offsite copy once a week.',
        votes: ['bob'],
        replies: [
          {
            by: 'bob',
            at: 2,
            text: 'Do you encrypt the offsite copy?',
            replies: [{ by: 'alice', at: 3, text: 'Yes, Borg encrypts on the client.' }],
          },
        ],
      },
      {
        by: 'dave',
        at: 4,
        text: 'I just copy everything to a USB stick sometimes.',
        labels: [{ by: 'carol', label: 'noise' }],
      },
      {
        by: 'carol',
        at: 5,
        text: 'Test restores quarterly. An untested backup is a hope, not a backup.',
        votes: ['alice', 'bob', 'dave'],
      },
    ],
  },
  {
    by: 'dave',
    group: 'music',
    ago: 30,
    title: "Live performance of 'Clair de Lune' on a restored Pleyel",
    link: 'https://www.youtube.com/watch?v=abc123xyz',
    tags: ['classical', 'piano'],
    votes: ['alice'],
    bookmarks: ['alice', 'carol'],
    comments: [
      {
        by: 'alice',
        at: 1,
        text: 'The tone of that piano is lovely.',
        replies: [{ by: 'dave', at: 2, text: 'It was restored in 2019.' }],
      },
    ],
  },
  {
    by: 'carol',
    group: 'science',
    ago: 20,
    title: 'A readable introduction to CRISPR',
    link: 'https://en.wikipedia.org/wiki/CRISPR',
    tags: ['biology', 'reading'],
    votes: ['bob'],
    comments: [{ by: 'bob', at: 1, text: 'The history section is the best part.' }],
  },
  {
    by: 'admin',
    group: 'tech',
    ago: 10,
    title: 'Welcome to Agora',
    markdown:
      'This is a demo site. Log in as `alice`, `bob`, `carol` or `dave` (password `demo-password`) and ' +
      'try voting, commenting and labelling.\n\nThe GraphQL API is at `/graphql`, the REST API at `/api/beta`.',
    tags: ['meta', 'announcements'],
    official: true,
    votes: ['alice', 'bob', 'carol', 'dave'],
    comments: [{ by: 'alice', at: 0.5, text: 'Hello everyone!', votes: ['bob'] }],
  },
  {
    by: 'alice',
    group: 'games',
    ago: 3,
    title: 'What are you playing this week?',
    markdown: 'Weekly thread: tell us what you are playing and whether you would recommend it.',
    tags: ['weekly'],
    comments: [
      { by: 'bob', at: 0.5, text: 'Outer Wilds, finally. No spoilers please!', votes: ['alice'] },
      {
        by: 'carol',
        at: 1,
        text: 'Still Stardew Valley. It never ends.',
        replies: [{ by: 'dave', at: 2, text: 'That is the point of it.' }],
      },
    ],
  },
];

function services(deps: SeedDeps): DiscussionServiceSet {
  return deps.services.discussion;
}

/** Whether the database holds no user account at all. */
export async function databaseHasNoUsers(db: Database): Promise<boolean> {
  const collection = db.conn.db?.collection('users');
  if (!collection) return false;
  return (await collection.countDocuments({}, { limit: 1 })) === 0;
}

/** Whether the demo accounts are already there. */
export async function demoPresent(deps: SeedDeps): Promise<boolean> {
  const ds = services(deps);
  const anon: Actor = { kind: 'anonymous' };
  try {
    await ds.users.getByUsername(anon, DEMO_USERS[0]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the demo dataset, its times spread over the last three days. The services it writes
 * through read a clock of their own: the server may be answering requests meanwhile, and those
 * must keep the real time (a registration during the seed once got a joinedAt days in the past).
 */
export async function seedDemo(deps: SeedDeps): Promise<SeedSummary> {
  const clock = new SettableClock();
  const ds = services(deps).withClock(clock);
  const now = Date.now();
  const at = (hoursAgo: number) => clock.set(new Date(now - hoursAgo * 3600_000));
  const summary: SeedSummary = { users: 0, groups: 0, topics: 0, comments: 0 };
  const actors = new Map<Who, Actor>();
  const asActor = (u: UserView): Actor => ({ kind: 'user', userId: u.id, username: u.username, isAdmin: u.isAdmin });
  at(96);
  actors.set('admin', asActor(await ds.users.create(SYSTEM, { ...DEMO_ADMIN, isAdmin: true })));
  for (const name of DEMO_USERS)
    actors.set(name, asActor(await ds.users.create(SYSTEM, { username: name, password: DEMO_PASSWORD })));
  summary.users = actors.size;
  for (const g of GROUPS) {
    await ds.groups.create(SYSTEM, g);
    summary.groups++;
  }
  const who = (w: Who) => actors.get(w)!;

  for (const t of TOPICS) {
    at(t.ago);
    const topic: TopicView = await ds.topics.post(who(t.by), {
      group: t.group,
      title: t.title,
      markdown: t.markdown ?? null,
      link: t.link ?? null,
      tags: t.tags,
    });
    summary.topics++;
    if (t.official) await ds.topics.setOfficial(SYSTEM, topic.id, true);
    for (const v of t.votes ?? []) await ds.votes.vote(who(v), 'topic', topic.id);
    for (const b of t.bookmarks ?? []) await ds.bookmarks.bookmark(who(b), 'topic', topic.id);

    // Comments in posting order across the whole thread, so ids follow time.
    const all: { c: DemoComment; parent: DemoComment | null }[] = [];
    const walk = (cs: DemoComment[], parent: DemoComment | null) =>
      cs.forEach((c) => (all.push({ c, parent }), walk(c.replies ?? [], c)));
    walk(t.comments ?? [], null);
    all.sort((a, b) => a.c.at - b.c.at);
    const posted = new Map<DemoComment, CommentView>();
    const visits = [...(t.visits ?? [])].sort((a, b) => a.at - b.at);
    for (const { c, parent } of all) {
      // A visit records the comment count at its time: it must come before the comments after it.
      while (visits.length > 0 && visits[0]!.at <= c.at) {
        const v = visits.shift()!;
        at(t.ago - v.at);
        await ds.visits.record(who(v.by), topic.id);
      }
      at(t.ago - c.at);
      const view = await ds.comments.post(who(c.by), {
        topicId: topic.id,
        parentId: parent ? posted.get(parent)!.id : null,
        markdown: c.text,
      });
      posted.set(c, view);
      summary.comments++;
      for (const v of c.votes ?? []) await ds.votes.vote(who(v), 'comment', view.id);
      for (const l of c.labels ?? []) await ds.labels.label(who(l.by), view.id, l.label, l.reason ?? null);
    }
    for (const v of visits) {
      at(t.ago - v.at);
      await ds.visits.record(who(v.by), topic.id);
    }
  }
  return summary;
}

/** At start-up: seeds only an empty database; failures are logged, never fatal. */
export async function seedDemoIfEmpty(deps: SeedDeps): Promise<SeedSummary | null> {
  try {
    if (!(await databaseHasNoUsers(deps.db))) return null;
    const summary = await seedDemo(deps);
    deps.log?.info(
      `Seeded the demo data (${summary.topics} topics, ${summary.comments} comments). Demo accounts: ` +
        `${DEMO_USERS.join(', ')} (password ${DEMO_PASSWORD}), ${DEMO_ADMIN.username} (password ` +
        `${DEMO_ADMIN.password}).`,
    );
    return summary;
  } catch (err) {
    deps.log?.warn({ err }, 'seeding the demo data failed');
    return null;
  }
}
