/**
 * `npm run build && node bench/live.js`: live updates (GraphQL subscriptions) across two Agora
 * processes on one embedded database (FerretDB, so the feed polls; LIVE_POLL_INTERVAL_MS default).
 *
 * 1. Idle cost: 1,000 subscriptions (50 sockets × 20) opened on instance B: growth of B's resident
 *    memory, and B's CPU over BENCH_LIVE_IDLE_SECONDS (default 30) with nothing happening.
 * 2. Latency: with those 1,000 subscriptions open on B (all on one topic), BENCH_LIVE_COMMENTS
 *    (default 100) comments posted one at a time through A's GraphQL endpoint; for every delivery,
 *    the time from A's answer to the message's arrival at B's subscriber. p50/p99 over all.
 * 3. Burst: 500 subscribers of another topic (250 on each instance); 200 comments posted in 10 s
 *    (one started every 50 ms, whether or not the previous one was answered) through A. Each
 *    subscriber must receive each comment exactly once, all in the same order: the log's order.
 *    Each instance's count of holes its feed skipped (live_events_gaps_skipped_total) must stay 0.
 *
 * Writes bench/results/live.json and prints a summary. Figures are from a shared machine: noisy.
 */
'use strict';
const { gql } = require('./lib/graphql');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const WebSocket = require('ws');
const { createClient } = require('graphql-ws');
const { startDatabase, startAgora, tempDir } = require('./lib/agora');
const { round } = require('./lib/stats');

const log = (m) => process.stderr.write(`[bench-live] ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const num = (name, fallback) => Number(process.env[name] ?? fallback);
const SUBS = num('BENCH_LIVE_SUBSCRIPTIONS', 1000);
const PER_SOCKET = 20;
const COMMENTS = num('BENCH_LIVE_COMMENTS', 100);
const IDLE_SECONDS = num('BENCH_LIVE_IDLE_SECONDS', 30);
const BURST = num('BENCH_LIVE_BURST', 200);
const BURST_SUBS = num('BENCH_LIVE_BURST_SUBSCRIBERS', 500);

const LIVE_ENV = { LIVE_MAX_CONNECTIONS_PER_ADDRESS: '10000', LIVE_QUEUE_LIMIT: '100000', LOG_LEVEL: 'warn' };

/** /proc/<pid>: resident bytes and CPU seconds (user + system). */
function procStats(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) * 1024;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rss, cpu: ticks / 100 };
}

/** V8's heap as the server's /metrics reports it (prom-client's default metrics), in bytes. */
async function heapOf(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (re) => Number(re.exec(text)?.[1] ?? NaN);
  return {
    used: read(/^nodejs_heap_size_used_bytes (\S+)/m),
    total: read(/^nodejs_heap_size_total_bytes (\S+)/m),
    newSpace: read(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)/m),
  };
}

/** live_events_gaps_skipped_total from the server's /metrics. */
async function gapsSkipped(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^live_events_gaps_skipped_total (\S+)/m.exec(text)?.[1] ?? NaN);
}

function percentile(values, p) {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];
}

/** `count` subscriptions on `wsUrl`, PER_SOCKET per socket; onMessage(subIndex, data, arrivedAt). */
async function openSubscriptions(wsUrl, count, query, variables, onMessage) {
  const clients = [];
  let acked = 0;
  for (let s = 0; s * PER_SOCKET < count; s++) {
    const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, keepAlive: 0 });
    clients.push(client);
    for (let i = s * PER_SOCKET; i < Math.min(count, (s + 1) * PER_SOCKET); i++) {
      client.subscribe(
        { query, variables },
        {
          next: (m) => onMessage(i, m, performance.now()),
          error: (e) => log(`subscription ${i} error: ${JSON.stringify(e).slice(0, 300)}`),
          complete: () => {},
        },
      );
    }
    await new Promise((resolve) => client.on('connected', () => resolve(acked++)));
  }
  return { dispose: () => Promise.all(clients.map((c) => c.dispose())) };
}

const ACTIVITY =
  'subscription($id: ID!) { topicActivity(topicId: $id) { cursor kind commentId comment { id: id36 ' +
  'votes: voteCount } } }';
const POST = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id: id36 } } }';

async function main() {
  const workDir = tempDir('agora-bench-live-');
  const db = await startDatabase(path.join(workDir, 'data'));
  log(
    `database: ${db.description}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const uri = db.uri.replace(/\/?(\?|$)/, '/agora_live$1');
  const a = await startAgora({
    mongoUri: uri,
    dataDir: path.join(workDir, 'a'),
    env: { ...LIVE_ENV, DEMO_SEED: 'true' },
  });
  const b = await startAgora({ mongoUri: uri, dataDir: path.join(workDir, 'b'), env: LIVE_ENV });
  const wsB = `${b.url.replace('http', 'ws')}/graphql`;
  const wsA = `${a.url.replace('http', 'ws')}/graphql`;
  const results = {
    date: new Date().toISOString(),
    machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model, loadAverageAtStart: os.loadavg() },
    database: db.description,
  };
  try {
    const login = await gql(a.url, 'mutation { login(username: "alice", password: "demo-password") { token } }');
    const token = login.login.token;
    const topics = [];
    for (let i = 0; i < 2; i++)
      topics.push(
        (
          await gql(
            a.url,
            'mutation($t: String!) { postTopic(input: { group: "tech", title: $t, markdown: "bench" }) { id } }',
            { t: `live bench ${i}` },
            token,
          )
        ).postTopic.id,
      );
    await sleep(1000);

    // 1. Idle cost of SUBS subscriptions on B, against B idle without any (its feed polls anyway).
    const bare = procStats(b.pid);
    await sleep(IDLE_SECONDS * 1000);
    const before = procStats(b.pid);
    const heapBefore = await heapOf(b.url);
    const arrivals = new Map(); // commentId → arrival times
    const subs = await openSubscriptions(wsB, SUBS, ACTIVITY, { id: topics[0] }, (_i, m, at) => {
      const id = m.data?.topicActivity?.commentId;
      if (!arrivals.has(id)) arrivals.set(id, []);
      arrivals.get(id).push(at);
    });
    await sleep(5000);
    const opened = procStats(b.pid);
    await sleep(IDLE_SECONDS * 1000);
    const idle = procStats(b.pid);
    const heapIdle = await heapOf(b.url);
    results.idle = {
      subscriptions: SUBS,
      sockets: Math.ceil(SUBS / PER_SOCKET),
      rssGrowthMiB: round((opened.rss - before.rss) / 2 ** 20, 1),
      rssAfterIdleGrowthMiB: round((idle.rss - before.rss) / 2 ** 20, 1),
      // What the subscriptions hold (live objects), and how much of the RSS growth is V8's young
      // generation grown by the burst of allocations while they were opened (released in time).
      heapUsedGrowthMiB: round((heapIdle.used - heapBefore.used) / 2 ** 20, 1),
      heapTotalGrowthMiB: round((heapIdle.total - heapBefore.total) / 2 ** 20, 1),
      newSpaceGrowthMiB: round((heapIdle.newSpace - heapBefore.newSpace) / 2 ** 20, 1),
      cpuPercentOfOneCoreIdle: round(((idle.cpu - opened.cpu) / IDLE_SECONDS) * 100, 2),
      cpuPercentOfOneCoreWithoutSubscriptions: round(((before.cpu - bare.cpu) / IDLE_SECONDS) * 100, 2),
      idleSeconds: IDLE_SECONDS,
    };
    log(`idle: ${JSON.stringify(results.idle)}`);

    // 2. Latency across instances: post through A, receive on B (every one of the SUBS subscribers).
    const latencies = [];
    let delivered = 0;
    for (let i = 0; i < COMMENTS; i++) {
      const r = await gql(a.url, POST, { t: topics[0], m: `latency ${i}` }, token);
      const answeredAt = performance.now();
      const id = r.postComment.comment.id;
      const end = Date.now() + 10_000;
      while ((arrivals.get(id)?.length ?? 0) < SUBS && Date.now() < end) await sleep(5);
      const got = arrivals.get(id) ?? [];
      delivered += got.length;
      // A message that arrived before the answer was read (same tick) counts as 0.
      for (const at of got) latencies.push(Math.max(0, at - answeredAt));
      await sleep(100 + Math.random() * 100);
    }
    results.latency = {
      subscriptionsOnB: SUBS,
      comments: COMMENTS,
      deliveries: delivered,
      expectedDeliveries: COMMENTS * SUBS,
      p50ms: round(percentile(latencies, 50), 1),
      p90ms: round(percentile(latencies, 90), 1),
      p99ms: round(percentile(latencies, 99), 1),
      maxMs: round(Math.max(...latencies), 1),
    };
    log(`latency: ${JSON.stringify(results.latency)}`);
    await subs.dispose();
    await sleep(1000);

    // 3. Burst: BURST comments in 10 s to BURST_SUBS subscribers (half on each instance).
    const seen = Array.from({ length: BURST_SUBS }, () => []);
    const half = Math.floor(BURST_SUBS / 2);
    const onA = await openSubscriptions(wsA, half, ACTIVITY, { id: topics[1] }, (i, m) =>
      seen[i].push(m.data?.topicActivity),
    );
    const onB = await openSubscriptions(wsB, BURST_SUBS - half, ACTIVITY, { id: topics[1] }, (i, m) =>
      seen[half + i].push(m.data?.topicActivity),
    );
    await sleep(2000);
    const posted = [];
    const started = Date.now();
    const inFlight = [];
    for (let i = 0; i < BURST; i++) {
      const due = started + i * (10_000 / BURST);
      if (due > Date.now()) await sleep(due - Date.now());
      inFlight.push(
        gql(a.url, POST, { t: topics[1], m: `burst ${i}` }, token).then((r) => posted.push(r.postComment.comment.id)),
      );
    }
    await Promise.all(inFlight);
    const postSeconds = (Date.now() - started) / 1000;
    const end = Date.now() + 30_000;
    while (seen.some((s) => s.length < BURST) && Date.now() < end) await sleep(50);
    const reference = seen[0].map((e) => e.cursor).join(',');
    const postedSet = new Set(posted);
    let complete = 0;
    let duplicates = 0;
    let sameOrder = 0;
    let increasing = 0;
    for (const s of seen) {
      const ids = s.map((e) => e.commentId);
      if (ids.length === BURST && new Set(ids).size === BURST && ids.every((id) => postedSet.has(id))) complete++;
      duplicates += ids.length - new Set(ids).size;
      if (s.map((e) => e.cursor).join(',') === reference) sameOrder++;
      const cursors = s.map((e) => Number(e.cursor));
      if (cursors.every((c, i) => i === 0 || c > cursors[i - 1])) increasing++;
    }
    // Comment ids are allocated when each comment is inserted: in the log's order when posts did not overlap.
    const idOrder = seen[0].map((e) => parseInt(e.commentId, 36));
    results.burst = {
      comments: BURST,
      postSeconds: round(postSeconds, 1),
      subscribers: BURST_SUBS,
      subscribersWithEveryCommentOnce: complete,
      duplicateMessages: duplicates,
      subscribersInTheSameOrder: sameOrder,
      subscribersWithIncreasingCursors: increasing,
      commentIdsInCursorOrder: idOrder.every((c, i) => i === 0 || c > idOrder[i - 1]),
    };
    log(`burst: ${JSON.stringify(results.burst)}`);
    // Holes the feed of each instance jumped over in the events log: 0 unless events were pruned unread.
    results.gapsSkipped = { a: await gapsSkipped(a.url), b: await gapsSkipped(b.url) };
    log(`gaps skipped: ${JSON.stringify(results.gapsSkipped)}`);
    await onA.dispose();
    await onB.dispose();
  } finally {
    await a.stop();
    await b.stop();
    await db.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const out = path.join(__dirname, 'results', 'live.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${out}`);
}

main().catch((err) => {
  log(`failed: ${err.stack ?? err}`);
  process.exit(1);
});
