#!/usr/bin/env node
/**
 * Load benchmark (issue 7): 200 concurrent connections for 60 s of mixed traffic against the built
 * server on the embedded database — REST listings, topics with their comment trees and user feeds,
 * the same through GraphQL, writes (topic votes, comment posts, small uploads), downloads and file
 * information — and the expectation of
 * zero errors, zero timeouts and no answer other than the one each request should get. Reports
 * throughput and latency (p50/p90/p99/max) overall and per kind of request.
 *
 *   npm run build && node bench/load.js
 *   BENCH_LOAD_SECONDS=60 BENCH_LOAD_CONNECTIONS=200 BENCH_LOAD_TIMEOUT=10 BENCH_LOAD_TOPICS=60   (the defaults)
 *   MONGODB_URI=mongodb://…   run against that MongoDB instead of the embedded database
 *
 * Not part of `npm test` (a minute of full load). Writes bench/results/load.json and load.md and
 * exits 1, listing the failures, when any request failed (connection error, reset, timeout), got an
 * unexpected status or a body that is not the expected answer (a GraphQL `errors` array, JSON that
 * does not parse, a short download), when the server logged an error, or when it was not ready
 * afterwards. Exit 2: the run could not be set up.
 *
 * The client is plain `node:http` with one keep-alive agent of BENCH_LOAD_CONNECTIONS sockets and as
 * many workers, each sending its next request when the previous one is answered. (autocannon was not
 * used: it silently re-sends on a connection the server closed mid-request, so a dropped request was
 * never counted, and it does not tell which request timed out.)
 *
 * The dataset: the demo data (the server seeds it at start) plus, through GraphQL as the demo
 * users, 60 tagged topics with comment trees of up to ~40 comments, and 200 stored files of 1 KiB–1 MiB
 * (downloaded with a Zipf-like popularity; the object cache's hit rate is reported). Every
 * request comes from 127.0.0.1, so the per-address upload and registration limits are switched off
 * for the run (FILES_UPLOAD_RATE_LIMIT=0, FILES_MAX_UPLOADS_PER_ADDRESS=0, REGISTRATION_RATE_LIMIT=0:
 * they would turn a single-address load generator into 429s); the global cap on concurrent uploads
 * stays at its default.
 */
'use strict';
const { gql } = require('./lib/graphql');
const { mulberry32 } = require('./lib/random');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');
const { cpuProbeMs } = require('./lib/cpu-probe');
const { fsyncProbeUs } = require('./lib/fsync-probe');
const { cpuSeconds, rssBytes } = require('./lib/memory');

/** Bytes of the SQLite write-ahead logs (`*-wal`) under `dir`; null when there are none (not SQLite). */
function walBytes(dir) {
  let total = null;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('-wal'))
      total = (total ?? 0) + fs.statSync(path.join(e.parentPath ?? e.path, e.name)).size;
  }
  return total;
}

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 200);
const TIMEOUT_S = Number(process.env.BENCH_LOAD_TIMEOUT ?? 10);
/** Topics seeded (each with 5–39 comments); fewer make quicker trial runs (the final run uses 60). */
const SEED_TOPICS = Number(process.env.BENCH_LOAD_TOPICS ?? 60);
const log = (m) => process.stderr.write(`[bench-load] ${m}\n`);
const DEMO_USERS = ['alice', 'bob', 'carol', 'dave'];
const DEMO_PASSWORD = 'demo-password';
const GROUPS = ['tech', 'games', 'games.tabletop', 'music', 'science'];
const TAGS = ['ask', 'ask.survey', 'news', 'hello world', 'discussion', 'meta.ask'];
/** Stored files; downloads pick them with a Zipf-like popularity (the i-th most popular ∝ 1/i). */
const SEED_FILES = Number(process.env.BENCH_LOAD_FILES ?? 200);
const MAX_LISTED_FAILURES = 30;
/**
 * The first seconds of a run, when the server's code is not yet optimized and its database pools are
 * still filling: the p99 after them is reported apart, so a start-up queue and the steady state can be
 * told apart.
 */
const START_SECONDS = 5;

/** Deterministic choices, so two runs send the same mix. */
function makeRandom(seed) {
  const next = mulberry32(seed);
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

/** The object cache's counters from /metrics (zeros when the server has none, e.g. GridFS). */
async function objectCacheStats(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (re) => Number(re.exec(text)?.[1] ?? 0);
  return {
    hit: value(/^files_object_cache_lookups_total\{result="hit"\} (\S+)/m),
    miss: value(/^files_object_cache_lookups_total\{result="miss"\} (\S+)/m),
    admitted: value(/^files_object_cache_admitted_total (\S+)/m),
    bytes: value(/^files_object_cache_bytes (\S+)/m),
  };
}

/** The database commands the server sent so far, by command name (mongodb_commands_total in /metrics). */
async function databaseCommands(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts = {};
  for (const m of text.matchAll(/^mongodb_commands_total\{command="([^"]+)"\} (\S+)/gm)) counts[m[1]] = Number(m[2]);
  return counts;
}

/** Topics with comment trees and stored files, written through the server's own front doors. */
async function seed(url) {
  const tokens = [];
  for (const u of DEMO_USERS)
    tokens.push(
      (
        await gql(url, 'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token } }', {
          u,
          p: DEMO_PASSWORD,
        })
      ).login.token,
    );
  const topics = new Array(SEED_TOPICS);
  const topicAuthors = new Array(SEED_TOPICS);
  let commentCount = 0;
  const seedTopic = async (i) => {
    const r = makeRandom(7 + i);
    const tags = [r.pick(TAGS), r.pick(TAGS)].filter((t, j, all) => all.indexOf(t) === j);
    const author = r.pick(tokens);
    const t = await gql(
      url,
      'mutation($input: PostTopicInput!) { postTopic(input: $input) { id id36 } }',
      {
        input: {
          group: r.pick(GROUPS),
          title: `Load topic ${i}: ${r.pick(['what do you use', 'a question', 'news of the day', 'show and tell'])}`,
          markdown: `Topic **${i}** with some text. `.repeat(1 + r.int(5)),
          tags,
        },
      },
      author,
    );
    topicAuthors[i] = author;
    const comments = [];
    const n = 5 + r.int(35);
    for (let c = 0; c < n; c++) {
      const parent = comments.length > 0 && r.next() < 0.7 ? r.pick(comments) : null;
      // postComment returns the new comment's thread node (GraphQL v2).
      const posted = await gql(
        url,
        'mutation($t: ID!, $p: ID, $m: String!) ' +
          '{ postComment(topicId: $t, parentId: $p, markdown: $m) { comment { id } } }',
        { t: t.postTopic.id, p: parent, m: `Comment ${c} on ${i}: ${'words '.repeat(1 + r.int(20))}` },
        r.pick(tokens),
      );
      comments.push(posted.postComment.comment.id);
    }
    commentCount += n;
    // The REST id (/api/beta/topic/{id36}); GraphQL takes it too.
    topics[i] = t.postTopic.id36;
  };
  // Four topics at a time (comments within a topic in order, so replies have their parents).
  let nextTopic = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (nextTopic < SEED_TOPICS) await seedTopic(nextTopic++);
    }),
  );
  const r = makeRandom(8);
  const files = [];
  // Sizes spread evenly on a log scale from 1 KiB to 1 MiB (the object cache's range), four uploads at a time.
  let nextFile = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (nextFile < SEED_FILES) {
        const i = nextFile++;
        const body = crypto.randomBytes(Math.round(1024 * 2 ** (10 * r.next())));
        const init = { method: 'PUT', headers: { accept: 'application/json' }, body };
        const res = await fetch(`${url}/upload/seed${i}.bin`, init);
        if (res.status !== 200) throw new Error(`seed upload: ${res.status} ${await res.text()}`);
        files[i] = { filename: (await res.json()).filename, size: body.length };
      }
    }),
  );
  return { tokens, topics, topicAuthors, files, commentCount };
}

const TOPIC_FIELDS =
  'id id36 title textHtml commentsUrl group { id path } tags voteCount commentCount author { id username ' +
  '} viewerHasVoted viewerHasBookmarked';
const GQL = {
  topics:
    `query($first: Int, $order: TopicOrder, $tag: String) { topics(first: $first, order: $order, ` +
    `tag: $tag) { edges { cursor node { ${TOPIC_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  topic: `query($id: ID!) { topic(id: $id) { ${TOPIC_FIELDS} threads { edges { node {
    depth comment { id author { username } textHtml voteCount }
    replies { depth comment { id author { username } textHtml voteCount }
      replies { depth comment { id textHtml } replies { comment { id } } } } } } } } }`,
  history:
    `query($u: String!) { user(username: $u) { username history(first: 25) { edges { node { ` +
    `__typename ... on Topic { id title } ... on Comment { id textHtml } } } } } }`,
  file: 'query($f: String!) { file(filename: $f) { filename size mimetype sha256sum url directUrl expiresAt } }',
  vote: 'mutation($t: ID!, $v: Boolean!) { voteTopic(id: $t, vote: $v) { id voteCount viewerHasVoted } }',
  comment: 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id } } }',
};

/** Checks of an answer: each returns null when it is the expected one, else what is wrong. */
function parseJson(body) {
  try {
    return { value: JSON.parse(body) };
  } catch {
    return { problem: `body is not JSON: ${snippet(body)}` };
  }
}
function snippet(body) {
  const s = String(body).replace(/\s+/g, ' ');
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
const expectJson = (statuses, check) => (status, body) => {
  if (!statuses.includes(status)) return `status ${status}: ${snippet(body)}`;
  const parsed = parseJson(body);
  if (parsed.problem) return parsed.problem;
  return check(parsed.value);
};
const expectGraphql = (check) =>
  expectJson([200], (v) => {
    if (v.errors) return `GraphQL errors: ${snippet(JSON.stringify(v.errors))}`;
    if (!v.data) return `no data: ${snippet(JSON.stringify(v))}`;
    return check(v.data);
  });

/** The mix: kind, weight, and how to build one request of it (with the check of its answer). */
function mix(data) {
  const r = makeRandom(11);
  const auth = () => (r.next() < 0.5 ? { authorization: `Bearer ${r.pick(data.tokens)}` } : {});
  const json = (headers) => ({ 'content-type': 'application/json', ...headers });
  const orders = ['activity', 'votes', 'comments', 'new', 'all_activity'];
  let uploads = 0;
  // Popularity: file i is downloaded ∝ 1/(i+1), so a few files are hot and most are read rarely.
  const weights = data.files.map((_, i) => 1 / (i + 1));
  const cumulative = [];
  weights.reduce((sum, w, i) => (cumulative[i] = sum + w), 0);
  const zipf = () => {
    const x = r.next() * cumulative[cumulative.length - 1];
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const rest = (check) =>
    expectJson([200], (v) =>
      Array.isArray(v) || typeof v !== 'object' || v === null
        ? `unexpected JSON: ${snippet(JSON.stringify(v))}`
        : check(v),
    );
  return [
    [
      'REST listing',
      18,
      () => ({
        method: 'GET',
        path:
          `/api/beta/topics?limit=${1 + r.int(50)}&order=${r.pick(orders)}` +
          (r.next() < 0.3 ? `&tag=${encodeURIComponent(r.pick(TAGS))}` : ''),
        headers: auth(),
        check: rest((v) => (Array.isArray(v.topics) ? null : 'no topics array')),
      }),
    ],
    [
      'REST topic tree',
      14,
      () => ({
        method: 'GET',
        path: `/api/beta/topic/${r.pick(data.topics)}`,
        headers: auth(),
        check: rest((v) =>
          v.topic && Array.isArray(v.comments) && v.comments.length > 0 ? null : 'no topic or no comments',
        ),
      }),
    ],
    [
      'REST user feed',
      8,
      () => ({
        method: 'GET',
        path: `/api/beta/user/${r.pick(DEMO_USERS)}${r.pick(['', '/topics', '/comments'])}?limit=25`,
        headers: auth(),
        check: rest(() => null),
      }),
    ],
    [
      'GraphQL listing',
      12,
      () => ({
        method: 'POST',
        path: '/graphql',
        headers: json(auth()),
        body: JSON.stringify({
          query: GQL.topics,
          variables: {
            first: 1 + r.int(50),
            order: r.pick(['ACTIVITY', 'VOTES', 'NEW']),
            tag: r.next() < 0.3 ? r.pick(TAGS) : null,
          },
        }),
        check: expectGraphql((d) => (d.topics && Array.isArray(d.topics.edges) ? null : 'no topics.edges')),
      }),
    ],
    [
      'GraphQL topic tree',
      10,
      () => ({
        method: 'POST',
        path: '/graphql',
        headers: json(auth()),
        body: JSON.stringify({ query: GQL.topic, variables: { id: r.pick(data.topics) } }),
        check: expectGraphql((d) => (d.topic && d.topic.threads.edges.length > 0 ? null : 'no topic or no comments')),
      }),
    ],
    [
      'GraphQL user feed',
      6,
      () => ({
        method: 'POST',
        path: '/graphql',
        headers: json(auth()),
        body: JSON.stringify({ query: GQL.history, variables: { u: r.pick(DEMO_USERS) } }),
        check: expectGraphql((d) => (d.user && Array.isArray(d.user.history.edges) ? null : 'no user history')),
      }),
    ],
    [
      'download',
      16,
      () => {
        const f = data.files[zipf()];
        const range = r.next() < 0.2;
        return {
          method: 'GET',
          path: `/selif/${f.filename}`,
          headers: range ? { range: 'bytes=0-99' } : {},
          check: (status, body, bytes) => {
            if (status !== (range ? 206 : 200)) return `status ${status}: ${snippet(body)}`;
            const want = range ? 100 : f.size;
            return bytes === want ? null : `${bytes} bytes instead of ${want}`;
          },
        };
      },
    ],
    [
      'file information',
      5,
      () => {
        const f = r.pick(data.files);
        return {
          method: 'GET',
          path: `/${f.filename}`,
          headers: { accept: 'application/json' },
          check: expectJson([200], (v) =>
            v.filename === f.filename && Number(v.size) === f.size
              ? null
              : `wrong information: ${snippet(JSON.stringify(v))}`,
          ),
        };
      },
    ],
    [
      'GraphQL file information',
      2,
      () => {
        const f = r.pick(data.files);
        return {
          method: 'POST',
          path: '/graphql',
          headers: json({}),
          body: JSON.stringify({ query: GQL.file, variables: { f: f.filename } }),
          check: expectGraphql((d) =>
            d.file && d.file.filename === f.filename ? null : `wrong information: ${snippet(JSON.stringify(d))}`,
          ),
        };
      },
    ],
    [
      'small upload',
      5,
      () => {
        const n = uploads++;
        return {
          method: 'PUT',
          path: `/upload/load${n}.txt`,
          headers: { 'content-type': 'text/plain', accept: 'application/json' },
          body: `load test upload ${n}\n`.repeat(1 + r.int(100)),
          check: expectJson([200], (v) =>
            typeof v.filename === 'string' && typeof v.delete_key === 'string'
              ? null
              : `no filename/delete_key: ${snippet(JSON.stringify(v))}`,
          ),
        };
      },
    ],
    // Writes: a vote on a topic by someone other than its author (voted or taken back at random), and
    // a comment posted on a topic.
    [
      'GraphQL vote',
      4,
      () => {
        const i = r.int(data.topics.length);
        const voters = data.tokens.filter((t) => t !== data.topicAuthors[i]);
        return {
          method: 'POST',
          path: '/graphql',
          headers: json({ authorization: `Bearer ${r.pick(voters)}` }),
          body: JSON.stringify({ query: GQL.vote, variables: { t: data.topics[i], v: r.next() < 0.5 } }),
          check: expectGraphql((d) =>
            typeof d.voteTopic?.voteCount === 'number' ? null : `no voteTopic: ${snippet(JSON.stringify(d))}`,
          ),
        };
      },
    ],
    [
      'GraphQL comment post',
      3,
      () => ({
        method: 'POST',
        path: '/graphql',
        headers: json({ authorization: `Bearer ${r.pick(data.tokens)}` }),
        body: JSON.stringify({
          query: GQL.comment,
          variables: { t: r.pick(data.topics), m: `load comment ${r.int(1e9)}` },
        }),
        check: expectGraphql((d) =>
          d.postComment?.comment?.id ? null : `no postComment: ${snippet(JSON.stringify(d))}`,
        ),
      }),
    ],
    [
      'readiness',
      4,
      () => ({
        method: 'GET',
        path: '/readyz',
        headers: {},
        check: (status, body) => (status === 200 ? null : `status ${status}: ${snippet(body)}`),
      }),
    ],
  ];
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round = (x, d = 1) =>
  x === null || x === undefined || Number.isNaN(x) ? null : Math.round(x * 10 ** d) / 10 ** d;

/**
 * One request on the shared agent; resolves { status, body } or { error } ('timeout' after
 * TIMEOUT_S for the whole exchange, otherwise the socket error's code or message).
 */
function send(agent, base, spec, timeoutMs) {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const body = spec.body === undefined ? null : Buffer.from(spec.body);
    const req = http.request({
      agent,
      host: base.hostname,
      port: base.port,
      method: spec.method,
      path: spec.path,
      headers: { ...spec.headers, ...(body ? { 'content-length': body.length } : {}) },
    });
    const timer = setTimeout(() => {
      done({ error: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        done({ status: res.statusCode, body: bytes.toString('utf8'), bytes: bytes.length });
      });
      res.on('aborted', () => done({ error: `response aborted after status ${res.statusCode}` }));
      res.on('error', (err) => done({ error: `response: ${err.code ?? err.message}` }));
    });
    req.on('error', (err) => done({ error: err.code ?? err.message }));
    req.end(body ?? undefined);
  });
}

/** CONNECTIONS workers for SECONDS; per kind: latencies, statuses, failures. */
async function runLoad(url, kinds) {
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
  const total = kinds.reduce((s, k) => s + k[1], 0);
  const pickRandom = makeRandom(23);
  const pickKind = () => {
    let x = pickRandom.next() * total;
    for (const k of kinds) if ((x -= k[1]) < 0) return k;
    return kinds[kinds.length - 1];
  };
  const perKind = new Map(
    kinds.map(([name]) => [
      name,
      { latencies: [], statuses: {}, errors: 0, timeouts: 0, unexpected: 0, maxMs: -1, maxSentAt: null },
    ]),
  );
  const all = [];
  /** Latencies of the requests sent after the first START_SECONDS (the steady state, start-up left out). */
  const steady = [];
  const failures = [];
  const fail = (line) => {
    if (failures.length < MAX_LISTED_FAILURES) failures.push(line);
  };
  // Every connection is open before the clock starts, as a keep-alive client's or a proxy's are: a
  // busy Node server accepts one new connection per turn of its event loop (libuv), so 200 opened
  // at once on a saturated server waited up to the end of the run to be accepted (bench/README.md).
  await Promise.all(
    Array.from({ length: CONNECTIONS }, () =>
      send(agent, base, { method: 'GET', path: '/healthz', headers: {} }, TIMEOUT_S * 1000),
    ),
  );
  const t0 = process.hrtime.bigint();
  const deadline = Date.now() + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const [name, , build] = pickKind();
      const spec = build();
      const k = perKind.get(name);
      const started = process.hrtime.bigint();
      const res = await send(agent, base, spec, TIMEOUT_S * 1000);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const at = `${(Number(started - t0) / 1e9).toFixed(1)} s`;
      if (res.error === 'timeout') {
        k.timeouts++;
        k.statuses.timeout = (k.statuses.timeout ?? 0) + 1;
        fail(`${name}: ${spec.method} ${spec.path} timed out after ${TIMEOUT_S} s (sent at ${at})`);
        continue;
      }
      if (res.error) {
        k.errors++;
        k.statuses.error = (k.statuses.error ?? 0) + 1;
        fail(`${name}: ${spec.method} ${spec.path} failed: ${res.error} after ${Math.round(ms)} ms (sent at ${at})`);
        continue;
      }
      k.latencies.push(ms);
      all.push(ms);
      const sentAt = Number(started - t0) / 1e9;
      if (sentAt >= START_SECONDS) steady.push(ms);
      if (ms > k.maxMs) {
        k.maxMs = ms;
        k.maxSentAt = sentAt;
      }
      k.statuses[res.status] = (k.statuses[res.status] ?? 0) + 1;
      const problem = spec.check(res.status, res.body, res.bytes);
      if (problem) {
        k.unexpected++;
        fail(`${name}: ${spec.method} ${spec.path} → ${problem}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  return { perKind, all, steady, failures, elapsed };
}

/** Server log lines (pino JSON on stdout) at error level or above, and warnings, counted. */
function serverLogWatcher() {
  const seen = { errors: 0, warnings: 0, lines: [] };
  let pending = '';
  const onOutput = (text, stream) => {
    if (stream === 'stderr') {
      seen.errors++;
      if (seen.lines.length < 10) seen.lines.push(`stderr: ${snippet(text)}`);
      return;
    }
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop();
    for (const line of lines) {
      if (!line.trim()) continue;
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = { level: 50, msg: line };
      }
      if (entry.level >= 50) {
        seen.errors++;
        if (seen.lines.length < 10)
          seen.lines.push(
            snippet(
              `${entry.msg ?? ''} ${entry.err ? `${entry.err.type}: ${entry.err.message}` : ''} ` +
                `${entry.req ? `${entry.req.method} ${entry.req.url}` : ''}`,
            ),
          );
      } else if (entry.level >= 40) seen.warnings++;
    }
  };
  return { seen, onOutput };
}

async function main() {
  const workDir = tempDir('agora-load-');
  const dataDir = path.join(workDir, 'data');
  const db = await startDatabase(dataDir);
  log(`database: ${db.description}`);
  const watcher = serverLogWatcher();
  let agora;
  let failed;
  try {
    agora = await startAgora({
      mongoUri: `${db.uri.replace(/\/$/, '')}/agora_load`,
      dataDir: path.join(workDir, 'agora'),
      env: {
        DEMO_SEED: 'true',
        FILES_UPLOAD_RATE_LIMIT: '0',
        FILES_MAX_UPLOADS_PER_ADDRESS: '0',
        REGISTRATION_RATE_LIMIT: '0',
      },
      onOutput: watcher.onOutput,
    });
    const started = Date.now();
    log(`server ${agora.url} (pid ${agora.pid}); seeding topics, comment trees and files`);
    const data = await seed(agora.url);
    const seedSeconds = Math.round((Date.now() - started) / 1000);
    log(`seeded in ${seedSeconds} s; ${CONNECTIONS} connections for ${SECONDS} s (request timeout ${TIMEOUT_S} s)`);
    const kinds = mix(data);
    const seenBefore = watcher.seen.errors;
    const probeBefore = cpuProbeMs();
    const fsyncBefore = fsyncProbeUs(workDir);

    const cpuBefore = cpuSeconds(agora.pid);
    // Where the machine's cores went: the database's process (when it is a child of ours) and this
    // load generator's own, beside the server's.
    const dbPid = db.pid && db.pid !== process.pid ? db.pid : null;
    const dbCpuBefore = dbPid ? cpuSeconds(dbPid) : NaN;
    const ownCpuBefore = process.cpuUsage();
    let peakRss = rssBytes(agora.pid);
    const rssTimer = setInterval(() => {
      try {
        peakRss = Math.max(peakRss, rssBytes(agora.pid));
      } catch {
        /* the server is gone: the readiness check below says so */
      }
    }, 500);
    const cacheBefore = await objectCacheStats(agora.url);
    const commandsBefore = await databaseCommands(agora.url);
    const run = await runLoad(agora.url, kinds);
    clearInterval(rssTimer);
    const commandsAfter = await databaseCommands(agora.url);
    const cacheAfter = await objectCacheStats(agora.url);
    const lookups = cacheAfter.hit + cacheAfter.miss - cacheBefore.hit - cacheBefore.miss;
    const objectCache = {
      lookups,
      hits: cacheAfter.hit - cacheBefore.hit,
      hitRate: lookups > 0 ? round((cacheAfter.hit - cacheBefore.hit) / lookups, 3) : null,
      admitted: cacheAfter.admitted - cacheBefore.admitted,
      bytesMiB: round(cacheAfter.bytes / 2 ** 20),
    };
    const cpu = cpuSeconds(agora.pid) - cpuBefore;
    const dbCpu = dbPid ? cpuSeconds(dbPid) - dbCpuBefore : NaN;
    const own = process.cpuUsage(ownCpuBefore);
    const loadCpu = (own.user + own.system) / 1e6;
    const ready = await fetch(`${agora.url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    const serverErrors = watcher.seen.errors - seenBefore;
    const wal = walBytes(dataDir);

    const kindsOut = [...run.perKind.entries()].map(([name, k]) => {
      const sorted = k.latencies.sort((a, b) => a - b);
      return {
        name,
        requests: sorted.length + k.errors + k.timeouts,
        requestsPerSecond: round(sorted.length / run.elapsed),
        statuses: k.statuses,
        errors: k.errors,
        timeouts: k.timeouts,
        unexpected: k.unexpected,
        p50: round(percentile(sorted, 50)),
        p90: round(percentile(sorted, 90)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted[sorted.length - 1] ?? null),
        maxSentAtSeconds: k.maxSentAt === null ? null : round(k.maxSentAt),
      };
    });
    const sum = (f) => kindsOut.reduce((s, k) => s + k[f], 0);
    const sortedAll = run.all.sort((a, b) => a - b);
    const sortedSteady = run.steady.sort((a, b) => a - b);
    const out = {
      date: new Date().toISOString(),
      machine: {
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model ?? 'unknown',
        cpuProbeMs: probeBefore,
        cpuProbeMsAtEnd: cpuProbeMs(),
        fsyncProbeUs: fsyncBefore,
        fsyncProbeUsAtEnd: fsyncProbeUs(workDir),
        node: process.version,
        loadAverage: os.loadavg().map((x) => round(x, 2)),
      },
      database: db.description.replace(/ \(SQLite in .*\)$/, ' (SQLite backend)'),
      connections: CONNECTIONS,
      seconds: SECONDS,
      elapsedSeconds: round(run.elapsed, 2),
      timeoutSeconds: TIMEOUT_S,
      dataset: {
        seededTopics: data.topics.length,
        seededComments: data.commentCount,
        seededFiles: data.files.length,
        seedSeconds,
      },
      requests: sum('requests'),
      answered: sortedAll.length,
      requestsPerSecond: round(sortedAll.length / run.elapsed),
      latencyMs: {
        p50: round(percentile(sortedAll, 50)),
        p90: round(percentile(sortedAll, 90)),
        p99: round(percentile(sortedAll, 99)),
        max: round(sortedAll[sortedAll.length - 1] ?? null),
        p99AfterStart: round(percentile(sortedSteady, 99)),
      },
      errors: sum('errors'),
      timeouts: sum('timeouts'),
      unexpected: sum('unexpected'),
      failures: run.failures,
      serverLoggedErrors: serverErrors,
      serverLogSample: watcher.seen.lines,
      serverCpuSeconds: round(cpu),
      serverCpuMsPerRequest: sortedAll.length > 0 ? round((cpu * 1000) / sortedAll.length, 3) : null,
      // Round trips to the database per answered request, and their names (issue 41).
      databaseCommands: Object.fromEntries(
        Object.entries(commandsAfter)
          .map(([name, n]) => [name, n - (commandsBefore[name] ?? 0)])
          .filter(([, n]) => n > 0),
      ),
      databaseCpuSeconds: Number.isNaN(dbCpu) ? null : round(dbCpu),
      loadGeneratorCpuSeconds: round(loadCpu),
      serverPeakRssMiB: round(peakRss / 2 ** 20),
      // The embedded database's write-ahead logs at the end (FerretDB on SQLite; null for another database).
      databaseWalMiB: wal === null ? null : round(wal / 2 ** 20),
      objectCache,
      readyAfterwards: ready,
      kinds: kindsOut,
    };
    const commandTotal = Object.values(out.databaseCommands).reduce((a, b) => a + b, 0);
    out.databaseCommandsPerRequest = out.answered > 0 ? round(commandTotal / out.answered, 3) : null;
    failed =
      out.errors > 0 || out.timeouts > 0 || out.unexpected > 0 || serverErrors > 0 || !ready || out.answered === 0;

    const md = [
      `# Agora load benchmark — ${out.date.slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `Machine: ${out.machine.cores} cores (${out.machine.cpu}, CPU probe ${out.machine.cpuProbeMs} ms before the ` +
        `run, ${out.machine.cpuProbeMsAtEnd} ms after; fsync probe ${out.machine.fsyncProbeUs} µs before, ` +
        `${out.machine.fsyncProbeUsAtEnd} µs after), ` +
        `Node ${out.machine.node}, load average ` +
        `${out.machine.loadAverage.join(' ')} at the end. Database: ${out.database}. Load generator ` +
        `(node:http, keep-alive) on the same machine.`,
      `Dataset: the demo data plus ${out.dataset.seededTopics} topics with ${out.dataset.seededComments} ` +
        `comments and ${out.dataset.seededFiles} files, posted through the server (${seedSeconds} s).`,
      '',
      `${out.connections} connections, ${out.seconds} s, request timeout ${out.timeoutSeconds} s: ` +
        `**${out.answered} requests answered, ${out.requestsPerSecond} req/s**, latency p50 ` +
        `${out.latencyMs.p50} ms, p90 ${out.latencyMs.p90} ms, **p99 ${out.latencyMs.p99} ms**, max ` +
        `${out.latencyMs.max} ms; p99 of the requests sent after the first ${START_SECONDS} s ` +
        `${out.latencyMs.p99AfterStart} ms (latencies are of answered requests; timeouts are counted apart).`,
      `Errors ${out.errors}, timeouts ${out.timeouts}, unexpected answers ${out.unexpected}, errors ` +
        `logged by the server ${serverErrors}; ready afterwards: ${ready ? 'yes' : 'NO'}. Server CPU ` +
        `${out.serverCpuSeconds} s (${out.serverCpuMsPerRequest} ms per request), database commands per request ` +
        `${out.databaseCommandsPerRequest}, peak RSS ${out.serverPeakRssMiB} MiB; database CPU ` +
        `${out.databaseCpuSeconds ?? 'n/a'} s, load generator CPU ${out.loadGeneratorCpuSeconds} s ` +
        `(of ${out.machine.cores * out.seconds} core-seconds)` +
        (out.databaseWalMiB === null ? '.' : `; the database's WAL files held ${out.databaseWalMiB} MiB at the end.`),
      `Object cache (FILES_OBJECT_CACHE_BYTES, files up to FILES_OBJECT_CACHE_MAX; downloads of ` +
        `${out.dataset.seededFiles} files of 1 KiB–1 MiB, Zipf-like popularity): ${objectCache.lookups} lookups, ` +
        `hit rate ${objectCache.hitRate}, ${objectCache.admitted} objects admitted, ` +
        `${objectCache.bytesMiB} MiB held at the end.`,
      `Result: **${failed ? 'FAILED' : 'passed'}**.`,
      '',
      '| Kind | Requests | req/s | Statuses | p50 ms | p90 ms | p99 ms | max ms (sent at) |',
      '|---|---|---|---|---|---|---|---|',
      ...kindsOut.map(
        (k) =>
          `| ${k.name} | ${k.requests} | ${k.requestsPerSecond} | ${Object.entries(k.statuses)
            .map(([s, n]) => `${s}: ${n}`)
            .join(', ')} | ${k.p50} | ${k.p90} | ${k.p99} | ${k.max} (${k.maxSentAtSeconds} s) |`,
      ),
      '',
      ...(run.failures.length > 0
        ? ['Failures (first ' + MAX_LISTED_FAILURES + '):', '', ...run.failures.map((f) => `- ${f}`), '']
        : []),
      ...(watcher.seen.lines.length > 0
        ? ['Errors logged by the server (first 10):', '', ...watcher.seen.lines.map((l) => `- ${l}`), '']
        : []),
    ].join('\n');
    const dir = path.join(__dirname, 'results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'load.json'), `${JSON.stringify(out, null, 2)}\n`);
    fs.writeFileSync(path.join(dir, 'load.md'), md);
    process.stdout.write(`${md}\n`);
    log(
      `${failed ? 'FAILED' : 'ok'} in ${((Date.now() - started) / 1000).toFixed(0)} s; written ` +
        `bench/results/load.{json,md}`,
    );
  } finally {
    if (agora) await agora.stop();
    await db.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

if (require.main === module) {
  main().catch((err) => {
    log(`fatal: ${err.stack ?? err}`);
    process.exit(2);
  });
}

module.exports = { seed, mix, runLoad };
