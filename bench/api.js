/**
 * API benchmark: the discussion endpoints of /api/beta and their GraphQL equivalents, with the same
 * data volume, against a server started for the run on the seeded dataset (bench/seed.js).
 *
 * Per scenario: requests/s, p50/p99 latency (autocannon, median of the runs), database commands
 * per request and database time per request (mongodb_commands_total / mongodb_command_seconds_total
 * diffed over runs with a fixed number of requests, so nothing is in flight when counting), and the
 * server's own time per request (latency at one connection minus database time). GraphQL ÷ REST
 * throughput ratios are computed within the run. A bounds check repeats each request shape with
 * another page size / tree size to show that commands per request do not grow with them.
 *
 * Scenarios adapt to how slow the database is: a probe request measures the latency; fast
 * scenarios get timed runs with several connections, slow ones (seconds per request, e.g. FerretDB
 * scanning a 100,000-document collection) get runs of a fixed number of requests on one connection.
 */
'use strict';
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { startAgora, mongoStats } = require('./lib/agora');
const { median, round } = require('./lib/stats');
const { cpuSeconds } = require('./lib/memory');

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

const TOPIC = `id id36 title textHtml url commentsUrl sourceSiteName sourceSiteIcon group { path }
  contentMetadata createdAt editedAt author { username } voteCount commentCount newCommentCount
  viewerHasVoted viewerHasBookmarked viewerHasIgnored isOfficial tags lastVisitedAt`;
const COMMENT = `id id36 author { username } textHtml createdAt editedAt voteCount isRemoved isDeleted
  isExemplary isOp viewerIsAuthor viewerHasVoted viewerHasBookmarked`;
/** A comment at its place in the tree (REST's depth, collapsed, is_new), the record inside. */
const THREAD = `depth isCollapsed isCollapsedIndividually isNew comment { ${COMMENT} }`;
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

const GQL = {
  topics: `query Topics($first: Int) { topics(first: $first) { edges { cursor node { ${TOPIC} } } ${PAGE_INFO} } }`,
  // The whole tree as REST gives it: every top-level thread (one page), each with its replies flat in display order.
  topic:
    `query Topic($id: ID!) { topic(id: $id) { ${TOPIC} threads(first: 1000) { edges { cursor node { ` +
    `${THREAD} descendants { ${THREAD} } } } } } }`,
  history: `query History($username: String!, $first: Int) { user(username: $username) { username
    history(first: $first) {
      edges { cursor node { __typename ... on Topic { ${TOPIC} } ... on Comment { ${COMMENT} } } } ${PAGE_INFO}
    } } }`,
};

function once(opts) {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** One request on a fresh connection (an idle keep-alive socket may be closed by the server meanwhile). */
function call(url, req) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const r = http.request(url + req.path, { method: req.method, headers: req.headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (res.statusCode !== 200)
          return reject(new Error(`${req.method} ${req.path} → ${res.statusCode} ${text.slice(0, 300)}`));
        if (req.graphql) {
          const body = JSON.parse(text);
          if (body.errors)
            return reject(new Error(`GraphQL ${req.graphql}: ${JSON.stringify(body.errors).slice(0, 300)}`));
        }
        resolve({ ms, bytes: Buffer.byteLength(text), text });
      });
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * Measures one request shape. Returns the figures and keeps every run's raw numbers.
 * opts: { runs, seconds, connections }
 */
/** One scenario's figures as a log line. */
function summary(out, note) {
  return (
    `${out.name}: ${out.requestsPerSecond} req/s, p50 ${out.p50Ms} ms, p99 ${out.p99Ms} ms, p50 at ` +
    `1 connection ${out.p50OneConnectionMs} ms, ${out.commandsPerRequest} commands/request (db ` +
    `${out.dbMsPerRequest} ms, server ${out.serverMsPerRequest} ms, server CPU ` +
    `${out.serverCpuMsPerRequest} ms) [${out.mode}${note ? `; ${note}` : ''}]`
  );
}

/** Waits until the server issues no more database commands (up to 60 s): nothing is in flight. */
async function settle(agora) {
  const deadline = Date.now() + 60_000;
  let last = (await mongoStats(agora.url)).commands;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = (await mongoStats(agora.url)).commands;
    if (now === last) return;
    last = now;
  }
}

/**
 * Waits (up to 60 s) until the database process uses under 5 % of a core over a second: the embedded
 * FerretDB reads each collection's field types in the background once a query first touches it
 * (patch 0007; seconds for the 100,000 comments), and a measurement taken meanwhile shares the cores
 * with it. A whole run reads every collection long before its writes; a run of the writes alone
 * would otherwise measure them during that read. Returns the seconds waited.
 */
async function databaseQuiet(dbPid) {
  if (!dbPid) return 0;
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    const cpu0 = cpuSeconds(dbPid);
    await new Promise((r) => setTimeout(r, 1000));
    const used = cpuSeconds(dbPid) - cpu0;
    if (!(used >= 0.05)) break;
  }
  return Math.round((Date.now() - started) / 100) / 10;
}

async function measureScenario(agora, s, opts, log) {
  const target = { url: agora.url + s.path, method: s.method, headers: s.headers, body: s.body };
  /** Runs `fn` (which makes `requests` requests on one connection) with commands, DB time and CPU counted. */
  const counting = async (fn) => {
    const before = await mongoStats(agora.url);
    const cpu0 = cpuSeconds(agora.pid);
    const t0 = process.hrtime.bigint();
    const r = await fn();
    // Minus what the idle process spends meanwhile (driver heartbeats, timers): slow requests
    // would otherwise be charged for seconds of background work.
    const cpu = Math.max(
      0,
      cpuSeconds(agora.pid) - cpu0 - (opts.idleCpuPerSecond ?? 0) * (Number(process.hrtime.bigint() - t0) / 1e9),
    );
    const after = await mongoStats(agora.url);
    return {
      r,
      counts: {
        commands: after.commands - before.commands,
        dbSeconds: after.seconds - before.seconds,
        cpuSeconds: cpu,
      },
    };
  };
  // A first request warms the code path and the comment cache (the uncached scenarios have it
  // off); then, with nothing left in flight, the probe checks the answer and tells how slow the
  // scenario is.
  await call(agora.url, s);
  await settle(agora);
  const probe = await counting(() => call(agora.url, s));
  const slow = probe.r.ms * 10 > opts.seconds * 1000;
  const timeout = Math.max(10, Math.ceil((probe.r.ms / 1000) * 5));
  const runs = []; // { requestsPerSecond, p50, p99, bad }
  const counted = []; // { requests, commands, dbSeconds, cpuSeconds, meanMs }
  if (slow) {
    // Seconds per request: runs of a fixed number of requests on one connection (nothing in
    // flight at the end, so each run is counted too); the probe is the first run.
    const amount = Math.max(1, Math.min(5, Math.floor((opts.seconds * 1000) / probe.r.ms)));
    runs.push({ requestsPerSecond: 1000 / probe.r.ms, p50: probe.r.ms, p99: probe.r.ms, bad: 0 });
    counted.push({ requests: 1, meanMs: probe.r.ms, p50: probe.r.ms, ...probe.counts });
    for (let i = 1; i < opts.runs; i++) {
      const { r, counts } = await counting(() => once({ ...target, connections: 1, amount, timeout }));
      runs.push({
        requestsPerSecond: r.requests.total / (r.duration || 1),
        p50: r.latency.p50,
        p99: r.latency.p99,
        bad: r.non2xx + r.errors + r.timeouts,
      });
      counted.push({ requests: r.requests.total, meanMs: r.latency.mean, p50: r.latency.p50, ...counts });
    }
  } else {
    for (let i = 0; i < opts.runs; i++) {
      // A counted run (one connection, fixed amount) for commands, database and server time…
      const amount = Math.max(3, Math.min(50, Math.floor((opts.seconds * 1000) / probe.r.ms / 4)));
      const { r: c, counts } = await counting(() => once({ ...target, connections: 1, amount, timeout }));
      counted.push({ requests: c.requests.total, meanMs: c.latency.mean, p50: c.latency.p50, ...counts });
      // …then a timed load run with several connections for throughput and latency.
      const r = await once({ ...target, connections: opts.connections, duration: opts.seconds, timeout });
      // The load client stops at the deadline, the server finishes what is in flight: wait for
      // that, or the next counted run would be charged with those requests' commands.
      await settle(agora);
      runs.push({
        requestsPerSecond: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        bad: r.non2xx + r.errors + r.timeouts + c.non2xx + c.errors + c.timeouts,
      });
    }
  }
  const bad = runs.reduce((n, r) => n + r.bad, 0);
  if (bad > 0) throw new Error(`${s.name}: ${bad} failed requests (non-2xx, errors or timeouts)`);
  const perRequest = (k) => median(counted.map((c) => c[k] / c.requests));
  const dbMs = perRequest('dbSeconds') * 1000;
  const serialMs = median(counted.map((c) => c.meanMs));
  const out = {
    name: s.name,
    door: s.door,
    shape: s.shape,
    viewer: s.viewer,
    request: `${s.method} ${s.path}${s.graphql ? ` ${s.graphql}` : ''}`,
    responseBytes: probe.r.bytes,
    mode: slow
      ? `${counted[counted.length - 1].requests} request(s) per run, 1 connection`
      : `${opts.seconds} s per run, ${opts.connections} connections`,
    requestsPerSecond: round(median(runs.map((r) => r.requestsPerSecond)), slow ? 3 : 1),
    p50Ms: round(median(runs.map((r) => r.p50)), 1),
    // One request at a time (the counted runs): latency without queueing behind other requests.
    p50OneConnectionMs: round(median(counted.map((c) => c.p50)), 1),
    p99Ms: round(median(runs.map((r) => r.p99)), 1),
    commandsPerRequest: round(perRequest('commands'), 2),
    dbMsPerRequest: round(dbMs, 1),
    // Commands that overlap (Promise.all) count twice in DB time; then the split is not known.
    serverMsPerRequest: dbMs > serialMs ? null : round(serialMs - dbMs, 1),
    serialMs: round(serialMs, 1),
    // CPU the server process spent per request (JavaScript, BSON decoding, GC, syscalls; its idle
    // rate subtracted): what the app costs whatever the database, not inflated by other processes.
    serverCpuMsPerRequest: round(perRequest('cpuSeconds') * 1000, 1),
    runs: opts.runs,
  };
  log(summary(out));
  return out;
}

/**
 * Unmeasured load on scenario `s` for as long as a measured run lasts, with as many connections
 * (a scenario of seconds per request gets its first requests only: it runs few enough anyway).
 */
async function warmUp(agora, s, opts) {
  await call(agora.url, s);
  const first = await call(agora.url, s);
  if (first.ms * 10 > opts.seconds * 1000) return;
  const target = { url: agora.url + s.path, method: s.method, headers: s.headers, body: s.body };
  const r = await once({ ...target, connections: opts.connections, duration: opts.seconds });
  if (r.non2xx + r.errors + r.timeouts > 0) throw new Error(`${s.name}: warm-up requests failed`);
  await settle(agora);
}

/**
 * The scenarios of one comparison (REST and GraphQL for the same data) measured in alternation,
 * one run each in turn, so a machine whose speed drifts during the bench (a shared VM) slows both
 * alike; each figure is then the median over the runs, as in measureScenario.
 */
async function measureInterleaved(agora, group, opts, log) {
  // Each door's path warmed first, measured by nothing: V8 optimizes a function only after many
  // calls (and compiles it on a thread of the server's own), so a run on a fresh path pays for
  // compiling as well, as the files group measured (bench/files.js, benchTargets).
  for (const s of group) await warmUp(agora, s, opts);
  const perRun = group.map(() => []);
  for (let i = 0; i < opts.runs; i++) {
    for (const [k, s] of group.entries())
      perRun[k].push(await measureScenario(agora, s, { ...opts, runs: 1 }, () => {}));
  }
  return group.map((s, k) => {
    const runs = perRun[k];
    const out = { ...runs[runs.length - 1], runs: opts.runs };
    for (const [key, value] of Object.entries(out)) {
      if (typeof value !== 'number' || key === 'runs' || key === 'responseBytes') continue;
      const values = runs.map((r) => r[key]).filter((v) => typeof v === 'number');
      out[key] = round(median(values), key === 'requestsPerSecond' && value < 10 ? 3 : 1);
    }
    if (runs.some((r) => r.serverMsPerRequest === null)) out.serverMsPerRequest = null;
    log(summary(out, 'runs alternated with the other door'));
    return out;
  });
}

/** Commands for one request (one connection, nothing else in flight). */
async function commandsOf(agora, s) {
  // Counted in the state the measured scenarios are in: after a first request (which fills the
  // comment cache), with nothing else in flight.
  await call(agora.url, s);
  await settle(agora);
  const before = await mongoStats(agora.url);
  await call(agora.url, s);
  const after = await mongoStats(agora.url);
  return after.commands - before.commands;
}

/**
 * The write scenarios: a vote on the 5,000-comment topic (taken back every other request, so that
 * each request is a real change), a comment posted on it and a reply to its deepest comment,
 * logged in, through GraphQL.
 */
function writeScenarios(big, token, deepest) {
  const vote = 'mutation($t: ID!, $v: Boolean!) { voteTopic(id: $t, vote: $v) { voteCount viewerHasVoted } }';
  const post = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id36 } } }';
  const reply =
    'mutation($t: ID!, $p: ID!, $m: String!) { postComment(topicId: $t, parentId: $p, markdown: $m) ' +
    '{ depth comment { id36 } } }';
  return [
    {
      name: `GraphQL vote on topic ${big} (5,000 comments), logged in`,
      shape: 'write: vote',
      body: (i) => ({ query: vote, variables: { t: big, v: i % 2 === 0 } }),
    },
    {
      name: `GraphQL comment posted on topic ${big} (5,000 comments), logged in`,
      shape: 'write: comment',
      body: (i) => ({ query: post, variables: { t: big, m: `bench comment ${i} ${Date.now()}` } }),
    },
    {
      name: `GraphQL reply at depth ${deepest.depth + 1} on topic ${big} (5,000 comments), logged in`,
      shape: 'write: reply',
      body: (i) => ({ query: reply, variables: { t: big, p: deepest.id36, m: `bench reply ${i} ${Date.now()}` } }),
    },
  ].map((w) => ({ ...w, token }));
}

/** The deepest comment of topic `id36` (its id36 and depth), from the topic's REST tree. */
async function deepestComment(url, id36) {
  const res = await fetch(`${url}/api/beta/topic/${id36}`);
  if (res.status !== 200) throw new Error(`topic ${id36}: ${res.status}`);
  let deepest = null;
  const stack = [...(await res.json()).comments];
  while (stack.length > 0) {
    const c = stack.pop();
    if (!deepest || c.depth > deepest.depth) deepest = { id36: c.id, depth: c.depth };
    stack.push(...(c.children ?? []));
  }
  if (!deepest) throw new Error(`topic ${id36} has no comments`);
  return deepest;
}

/**
 * Measures a write: BENCH_RUNS × 10 requests one at a time (each counted alone: commands and
 * database time per write), after two unmeasured ones. Latency is at one connection: writes
 * to one document are serialized by the database anyway.
 */
async function measureWrites(agora, w, opts, log) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${w.token}` };
  const req = (i) => ({ method: 'POST', path: '/graphql', headers, body: JSON.stringify(w.body(i)), graphql: w.shape });
  let i = 0;
  for (; i < 2; i++) await call(agora.url, req(i));
  await settle(agora);
  const waited = await databaseQuiet(opts.dbPid);
  if (waited > 1.5) log(`${w.shape}: waited ${waited} s for the database's background work before measuring`);
  const samples = [];
  for (const end = i + Math.max(10, opts.runs * 10); i < end; i++) {
    const before = await mongoStats(agora.url);
    const cpu0 = cpuSeconds(agora.pid);
    const dbCpu0 = opts.dbPid ? cpuSeconds(opts.dbPid) : NaN;
    const r = await call(agora.url, req(i));
    const cpu = cpuSeconds(agora.pid) - cpu0;
    const dbCpu = opts.dbPid ? cpuSeconds(opts.dbPid) - dbCpu0 : NaN;
    const after = await mongoStats(agora.url);
    const dbMs = (after.seconds - before.seconds) * 1000;
    samples.push({
      ms: r.ms,
      commands: after.commands - before.commands,
      dbMs,
      cpuMs: cpu * 1000,
      dbCpuMs: dbCpu * 1000,
    });
  }
  const ms = samples.map((x) => x.ms).sort((a, b) => a - b);
  const p50 = median(ms);
  const dbMs = median(samples.map((x) => x.dbMs));
  const out = {
    name: w.name,
    door: 'GraphQL',
    shape: w.shape,
    viewer: 'logged in',
    request: `POST /graphql ${w.shape}`,
    responseBytes: 0,
    mode: `${samples.length} writes, one at a time`,
    requestsPerSecond: round(1000 / (ms.reduce((a, b) => a + b, 0) / ms.length), 1),
    p50Ms: round(p50, 1),
    p50OneConnectionMs: round(p50, 1),
    p99Ms: round(ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))], 1),
    commandsPerRequest: round(median(samples.map((x) => x.commands)), 2),
    dbMsPerRequest: round(dbMs, 1),
    serverMsPerRequest: dbMs > p50 ? null : round(p50 - dbMs, 1),
    serialMs: round(p50, 1),
    // CPU times from /proc advance in 10 ms ticks: the mean over the writes, not the median of ticks.
    serverCpuMsPerRequest: round(mean(samples.map((x) => x.cpuMs)), 1),
    // The database process's CPU per write: less sensitive than latency to what else runs on a
    // shared machine.
    databaseCpuMsPerRequest: opts.dbPid ? round(mean(samples.map((x) => x.dbCpuMs)), 2) : null,
    runs: opts.runs,
  };
  if (out.databaseCpuMsPerRequest !== null) out.mode += `; database CPU ${out.databaseCpuMsPerRequest} ms per write`;
  log(summary(out));
  return out;
}

function rest(name, p, token, extra = {}) {
  return {
    name,
    door: 'REST',
    method: 'GET',
    path: p,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    viewer: token ? 'logged in' : 'anonymous',
    ...extra,
  };
}

function graphql(name, op, variables, token, extra = {}) {
  const body = JSON.stringify({ query: GQL[op], variables });
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return {
    name,
    door: 'GraphQL',
    method: 'POST',
    path: '/graphql',
    headers,
    body,
    graphql: `${op}(${JSON.stringify(variables)})`,
    viewer: token ? 'logged in' : 'anonymous',
    ...extra,
  };
}

async function login(url, username, password) {
  const res = await fetch(`${url}/api/beta/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
  return (await res.json()).token;
}

/**
 * db: the launched database (the dataset already in it, see run.js); manifest: from seed.js.
 */
async function runApiBench({ db, workDir, opts: runOpts, manifest }) {
  let opts = { ...runOpts, dbPid: db.pid };
  const log = (m) => process.stderr.write(`[bench-api] ${m}\n`);
  const agora = await startAgora({
    mongoUri: `${db.uri}/${manifest.dbName}`,
    dataDir: path.join(workDir, 'agora-api'),
    env: { DEMO_SEED: 'false' },
  });
  try {
    const token = await login(agora.url, manifest.viewer, manifest.password);
    // The server's CPU use while idle, subtracted from the CPU measured around requests.
    const idle0 = cpuSeconds(agora.pid);
    await new Promise((r) => setTimeout(r, 5000));
    opts = { ...opts, idleCpuPerSecond: Math.max(0, (cpuSeconds(agora.pid) - idle0) / 5) };
    log(`idle server CPU: ${round(opts.idleCpuPerSecond * 1000, 1)} ms/s`);
    const big = manifest.bigTopic36;
    const u = manifest.heavyUser;
    const scenarios = [
      rest('REST topics, anonymous', '/api/beta/topics?limit=50', null, { shape: 'topics' }),
      graphql('GraphQL topics, anonymous', 'topics', { first: 50 }, null, { shape: 'topics' }),
      rest('REST topics, logged in', '/api/beta/topics?limit=50', token, { shape: 'topics' }),
      graphql('GraphQL topics, logged in', 'topics', { first: 50 }, token, { shape: 'topics' }),
      rest(`REST topic ${big} (5,000 comments), anonymous`, `/api/beta/topic/${big}`, null, { shape: 'topic' }),
      graphql(`GraphQL topic ${big} (5,000 comments, flat tree), anonymous`, 'topic', { id: big }, null, {
        shape: 'topic',
      }),
      rest(`REST topic ${big} (5,000 comments), logged in`, `/api/beta/topic/${big}`, token, { shape: 'topic' }),
      graphql(`GraphQL topic ${big} (5,000 comments, flat tree), logged in`, 'topic', { id: big }, token, {
        shape: 'topic',
      }),
      rest(`REST user ${u} history, anonymous`, `/api/beta/user/${u}`, null, { shape: 'history' }),
      graphql(`GraphQL user ${u} history, anonymous`, 'history', { username: u, first: 50 }, null, {
        shape: 'history',
      }),
    ];
    // BENCH_API_ONLY=<regular expression>: only the scenarios whose name matches (e.g. 'topic 6y1').
    const only = opts.apiOnly ? new RegExp(opts.apiOnly, 'i') : null;
    const measured = [];
    // REST and GraphQL for the same data and viewer are measured in alternation (measureInterleaved).
    const groups = new Map();
    for (const s of scenarios)
      if (!only || only.test(s.name))
        groups.set(`${s.shape}|${s.viewer}`, [...(groups.get(`${s.shape}|${s.viewer}`) ?? []), s]);
    for (const group of groups.values()) measured.push(...(await measureInterleaved(agora, group, opts, log)));

    // The big topic again on an instance with the comment cache off (COMMENT_CACHE_SIZE=0): what
    // a read costs right after one of its comments changed (src/discussion/comment-cache.ts).
    const uncached = [
      rest(`REST topic ${big} (5,000 comments), anonymous, uncached`, `/api/beta/topic/${big}`, null, {
        shape: 'topic, uncached',
      }),
      graphql(`GraphQL topic ${big} (5,000 comments, flat tree), anonymous, uncached`, 'topic', { id: big }, null, {
        shape: 'topic, uncached',
      }),
    ].filter((s) => !only || only.test(s.name));
    if (uncached.length > 0) {
      const cold = await startAgora({
        mongoUri: `${db.uri}/${manifest.dbName}`,
        dataDir: path.join(workDir, 'agora-api-uncached'),
        env: { DEMO_SEED: 'false', COMMENT_CACHE_SIZE: '0' },
      });
      try {
        measured.push(...(await measureInterleaved(cold, uncached, opts, log)));
      } finally {
        await cold.stop();
      }
    }

    // Writes on the big topic, one at a time on the instance with the cache (BENCH_API_ONLY applies).
    for (const w of writeScenarios(big, token, await deepestComment(agora.url, big))) {
      if (!only || only.test(w.name)) measured.push(await measureWrites(agora, w, opts, log));
    }

    // GraphQL ÷ REST throughput, pairwise within this run.
    const ratios = {};
    for (const g of measured.filter((m) => m.door === 'GraphQL')) {
      const r = measured.find((m) => m.door === 'REST' && m.shape === g.shape && m.viewer === g.viewer);
      if (r) ratios[`${g.shape}, ${g.viewer}`] = round(g.requestsPerSecond / r.requestsPerSecond, 2);
    }

    // Commands per request at another page size / tree size (the bounds of the REST and GraphQL
    // issues): the small shape is counted here, the large one is the measured scenario.
    const smallTopic = manifest.smallTopic36 ?? '1';
    const find = (door, shape, viewer) =>
      measured.find((m) => m.door === door && m.shape === shape && m.viewer === viewer);
    const checks = [
      [
        'topics page, anonymous',
        'topics',
        'anonymous',
        rest('', '/api/beta/topics?limit=5', null),
        graphql('', 'topics', { first: 5 }, null),
        'limit 5 → 50',
      ],
      [
        'topics page, logged in',
        'topics',
        'logged in',
        rest('', '/api/beta/topics?limit=5', token),
        graphql('', 'topics', { first: 5 }, token),
        'limit 5 → 50',
      ],
      [
        'topic tree, anonymous',
        'topic',
        'anonymous',
        rest('', `/api/beta/topic/${smallTopic}`, null),
        graphql('', 'topic', { id: smallTopic }, null),
        `topic ${smallTopic} (a few comments) → ${big} (5,000)`,
      ],
      [
        'topic tree, logged in',
        'topic',
        'logged in',
        rest('', `/api/beta/topic/${smallTopic}`, token),
        graphql('', 'topic', { id: smallTopic }, token),
        `topic ${smallTopic} (a few comments) → ${big} (5,000)`,
      ],
      [
        'user history, anonymous',
        'history',
        'anonymous',
        rest('', `/api/beta/user/${u}?limit=5`, null),
        graphql('', 'history', { username: u, first: 5 }, null),
        'limit 5 → 50',
      ],
    ];
    const bounds = [];
    if (!opts.skipBounds) {
      for (const [name, shape, viewer, rSmall, gSmall, sizes] of checks) {
        if (!find('REST', shape, viewer) || !find('GraphQL', shape, viewer)) continue; // not measured (BENCH_API_ONLY)
        const row = {
          name,
          sizes,
          rest: [await commandsOf(agora, rSmall), find('REST', shape, viewer).commandsPerRequest],
          graphql: [await commandsOf(agora, gSmall), find('GraphQL', shape, viewer).commandsPerRequest],
        };
        row.constant = row.rest[0] === row.rest[1] && row.graphql[0] === row.graphql[1];
        bounds.push(row);
        log(`bounds ${name} (${sizes}): REST ${row.rest.join(' → ')}, GraphQL ${row.graphql.join(' → ')} commands`);
      }
    }
    return {
      dataset: manifest.summary,
      viewer: manifest.viewer,
      loadAverage: os.loadavg().map((x) => round(x, 2)),
      scenarios: measured,
      ratios,
      bounds,
    };
  } finally {
    await agora.stop();
  }
}

module.exports = { runApiBench, GQL };
