#!/usr/bin/env node
/**
 * Abuse run (issue 40): a catalog of hostile GraphQL documents and subscriptions against a fresh
 * built server on loopback, while /healthz is probed every 100 ms. For each attack it reports the
 * time until every request of the attack was answered (refused or executed), the longest /healthz
 * wait during it, and the server's RSS before and after; over the whole catalog, the RSS growth.
 * The last attack sends ABUSE_DISTINCT distinct documents (no string literals, each three times so
 * graphql-jit compiles it) and reads the RSS again once they stop.
 *
 *   npm run build && node bench/abuse.js
 *   ABUSE_DISTINCT=10000 ABUSE_COMMENTS=300 ABUSE_SETTLE_SECONDS=30   (defaults)
 *   ABUSE_ONLY_DISTINCT=1   only the distinct documents; BENCH_NODE_ARGS adds V8 flags to the server's
 *
 * Targets: every attack answered within 1.5 s (per request; the distinct-documents attack is many
 * requests, each held to it), /healthz never waits more than 300 ms, RSS growth over the catalog
 * ≤ 256 MiB, and the distinct documents leave RSS within +150 MiB once they stop. Writes
 * bench/results/abuse.json and abuse.md. Exit 0 when every target holds, 1 otherwise, 2 when the
 * run could not be set up. Bounded: each request times out after 30 s, the whole run after
 * ABUSE_MAX_SECONDS (default 900). Loopback only. Timings on a shared machine are contaminated by
 * whatever else runs: the report prints the load average.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const WebSocket = require('ws');
const { startDatabase, startAgora, tempDir, benchNodeArgs } = require('./lib/agora');
const { rssBytes } = require('./lib/memory');

const DISTINCT = Number(process.env.ABUSE_DISTINCT ?? 10_000);
const COMMENTS = Number(process.env.ABUSE_COMMENTS ?? 300);
/** A subscription not refused within this time was admitted: an event is then caused for it. */
const ADMIT_WAIT_MS = 1000;
/** "Once they stop": how long the server is left quiet before the distinct documents' RSS is read. */
const SETTLE_SECONDS = Number(process.env.ABUSE_SETTLE_SECONDS ?? 30);
const MAX_SECONDS = Number(process.env.ABUSE_MAX_SECONDS ?? 900);
const ANSWER_MS = 1500;
const HEALTH_MS = 300;
const RSS_CATALOG = 256 * 1024 * 1024;
const RSS_DISTINCT = 150 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;
const MiB = 1024 * 1024;
const log = (m) => process.stderr.write(`[abuse] ${m}\n`);

let base = '';

async function post(body, token) {
  const started = performance.now();
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, text };
}

async function ok(query, variables, token) {
  const r = await post({ query, variables }, token);
  const body = JSON.parse(r.text);
  if (r.status !== 200 || body.errors) throw new Error(`setup: ${r.status} ${r.text.slice(0, 300)}`);
  return body.data;
}

/** /healthz every 100 ms; `window()` returns the longest wait since the last call. */
function healthProbe() {
  let longest = 0;
  let running = true;
  const loop = async () => {
    while (running) {
      const started = performance.now();
      try {
        await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then((r) => r.text());
      } catch {
        // A refused or timed-out probe counts as the time it took.
      }
      longest = Math.max(longest, performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const done = loop();
  return {
    window() {
      const l = longest;
      longest = 0;
      return l;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * A subscription over graphql-transport-ws; resolves with its answer: the refusal (an `error`
 * message, status 400) or, when the subscription was admitted (no refusal within ADMIT_WAIT_MS),
 * the first event `trigger()` caused (status 200, timed from the trigger: the work one event costs).
 */
function subscribeOnce(query, variables, trigger) {
  return new Promise((resolve, reject) => {
    let started = performance.now();
    let admitted;
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const timer = setTimeout(() => {
      clearTimeout(admitted);
      ws.terminate();
      reject(new Error('subscription: no answer'));
    }, REQUEST_TIMEOUT_MS);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'connection_ack') {
        ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
        admitted = setTimeout(() => {
          started = performance.now();
          trigger().catch(reject);
        }, ADMIT_WAIT_MS);
      } else if (m.type === 'error' || m.type === 'next' || m.type === 'complete') {
        clearTimeout(timer);
        clearTimeout(admitted);
        ws.close();
        resolve({ status: m.type === 'error' ? 400 : 200, ms: performance.now() - started, text: JSON.stringify(m) });
      }
    });
    ws.on('error', (e) => {
      clearTimeout(timer);
      clearTimeout(admitted);
      reject(e);
    });
  });
}

const rep = (s, n) => Array.from({ length: n }, (_, i) => s.replace(/\$i/g, String(i))).join(' ');

/** Runs `n` requests one after the other (an attack's variants); resolves with their answers. */
async function inTurn(n, send) {
  const answers = [];
  for (let i = 0; i < n; i++) answers.push(await send(i));
  return answers;
}

/** The V8 heap in use (prom-client's default metrics on /metrics), to tell retained memory from RSS. */
async function heapUsedMiB() {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const m = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text);
  return m ? +(Number(m[1]) / MiB).toFixed(1) : null;
}

/** The catalog: each attack returns its requests' answers. `ctx` has the seeded ids. */
function catalog(ctx) {
  const tree = 'threads(first: 1000) { nodes { descendants { comment { textHtml } } } }';
  return [
    {
      name: 'quadratic validation: node(id: $x) × 990, 10 variants (trailing spaces)',
      run: () =>
        inTurn(10, (i) =>
          post({
            query: `query($x: ID!) { ${rep('node(id: $x) { id }', 990)} }${' '.repeat(i)}`,
            variables: { x: '1' },
          }),
        ),
    },
    {
      name: 'quadratic validation: { serverInfo { version } } × 999',
      run: () => Promise.all([post({ query: `{ ${rep('serverInfo { version }', 999)} }` })]),
    },
    {
      name: 'same-key fields at the bound: 20 keys × 5 copies of a threads page, 5 variants (admitted)',
      run: () =>
        inTurn(5, (v) =>
          post({
            query:
              `query($x: ID!) { topic(id: $x) { ` +
              `${rep(rep('k$i: threads(first: 1) { nodes { depth comment { id author { username } } } }', 20), 5)}` +
              ` } }${' '.repeat(v)}`,
            variables: { x: ctx.topic },
          }),
        ),
    },
    {
      name: 'hundreds of aliases',
      run: () => Promise.all([post({ query: `{ ${rep('a$i: serverInfo { version }', 500)} }` })]),
    },
    {
      name: 'fragment fan (2^40 paths)',
      run: () => {
        const frags = Array.from({ length: 40 }, (_, i) =>
          i === 39 ? `fragment F${i} on Query { __typename }` : `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
        );
        return Promise.all([post({ query: `{ ...F0 } ${frags.join(' ')}` })]);
      },
    },
    {
      name: 'introspection repeated (48 aliases of __schema)',
      run: () => Promise.all([post({ query: `{ ${rep('s$i: __schema { types { name fields { name } } }', 48)} }` })]),
    },
    {
      name: `cost: 49 aliases of the whole tree of a ${COMMENTS}-comment topic`,
      run: () =>
        Promise.all([
          post({
            query: `query($x: ID!) { topic(id: $x) { ${rep(`a$i: ${tree}`, 49)} } }`,
            variables: { x: ctx.topic },
          }),
        ]),
    },
    {
      name: 'cost: the same over WebSocket, as a subscription (100 aliases; if admitted, one event)',
      run: () =>
        Promise.all([
          subscribeOnce(
            `subscription($t: ID!) { topicActivity(topicId: $t) { cursor topic { ` +
              `${rep(`a$i: ${tree.replace('textHtml', 'id36')}`, 100)} } } }`,
            { t: ctx.topic },
            // Admitted (the estimate is within GRAPHQL_MAX_COST): a comment on the topic, whose event
            // runs the whole selection once.
            () =>
              ok(
                'mutation($t: ID!) { postComment(topicId: $t, markdown: "an event") { depth } }',
                { t: ctx.topic },
                ctx.token,
              ),
          ),
        ]),
    },
    {
      name: 'the whole tree, 20 times (admitted)',
      run: () =>
        inTurn(20, () => post({ query: `query($x: ID!) { topic(id: $x) { ${tree} } }`, variables: { x: ctx.topic } })),
    },
    {
      name: 'deep nesting (3,000 levels)',
      run: () => Promise.all([post({ query: `${'{ a '.repeat(3000)}${'}'.repeat(3000)} }` })]),
    },
  ];
}

/** A distinct ~3 KB document without string literals: the jit path once it is seen three times. */
function distinctDocument(i) {
  const fields = ['id', 'id36', 'title', 'voteCount', 'commentCount', 'tags', 'createdAt', 'viewerHasVoted'];
  const pick = fields.filter((_, j) => (i >> j) & 1);
  const sel = `${pick.join(' ')} author { username } group { path }`;
  const aliases = Array.from(
    { length: 12 },
    (_, a) => `d${i}_${a}: topics(first: ${1 + ((i + a) % 5)}) { nodes { ${sel} } }`,
  );
  return `query D${i} { ${aliases.join(' ')} }`;
}

async function distinctAttack(pid) {
  const rssBefore = rssBytes(pid);
  const heapBefore = await heapUsedMiB();
  let slowest = 0;
  let refused = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < DISTINCT) {
        const i = next++;
        const query = distinctDocument(i);
        for (let k = 0; k < 3; k++) {
          const r = await post({ query });
          slowest = Math.max(slowest, r.ms);
          if (r.status !== 200) refused++;
        }
        if (i % 1000 === 999) log(`distinct documents: ${i + 1}, RSS ${(rssBytes(pid) / MiB).toFixed(0)} MiB`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const rssPeak = rssBytes(pid);
  // "Once they stop": a quiet moment for the collector (V8's memory reducer acts after some seconds
  // of low allocation), then the resident set; sampled every 5 s meanwhile, for the report.
  const settling = [];
  for (let t = 5; t <= SETTLE_SECONDS; t += 5) {
    await new Promise((r) => setTimeout(r, 5_000));
    settling.push(+(rssBytes(pid) / MiB).toFixed(1));
  }
  return {
    rssBefore,
    rssPeak,
    settling,
    rssAfter: rssBytes(pid),
    heapBefore,
    heapAfter: await heapUsedMiB(),
    slowest,
    refused,
    seconds,
  };
}

async function main() {
  const deadline = setTimeout(() => {
    log(`the run exceeded ${MAX_SECONDS} s: stopping`);
    process.exit(1);
  }, MAX_SECONDS * 1000);
  deadline.unref();
  const dataDir = tempDir('agora-abuse-');
  const db = await startDatabase(dataDir);
  const agora = await startAgora({
    mongoUri: db.uri,
    dataDir,
    env: { GRAPHQL_BATCHING: 'true', DEMO_SEED: 'true', ...JSON.parse(process.env.ABUSE_SERVER_ENV ?? '{}') },
  });
  base = agora.url;
  const results = { attacks: [] };
  let exit = 0;
  try {
    // Seed: one user, one topic with COMMENTS comments (a tree: each reply to a recent comment).
    const reg = await ok('mutation($u: String!, $p: String!) { register(username: $u, password: $p) { token } }', {
      u: 'abuser',
      p: 'a long password',
    });
    const token = reg.register.token;
    const group = await post({ query: '{ groups { path } }' });
    const groupPath = JSON.parse(group.text).data.groups[0]?.path ?? 'general';
    const t = await ok(
      'mutation($g: String!) { postTopic(input: { group: $g, title: "Abuse target", markdown: "text" }) { id36 } }',
      { g: groupPath },
      token,
    );
    const topic = t.postTopic.id36;
    const ids = [];
    for (let i = 0; i < COMMENTS; i++) {
      const parent = ids.length > 0 && i % 3 !== 0 ? ids[Math.max(0, ids.length - 1 - (i % 7))] : null;
      const c = await ok(
        'mutation($t: ID!, $p: ID, $m: String!) { ' +
          'postComment(topicId: $t, parentId: $p, markdown: $m) { comment { id36 } } }',
        { t: topic, p: parent, m: `Comment ${i}: ${'some words '.repeat(20)}` },
        token,
      );
      ids.push(c.postComment.comment.id36);
    }
    log(`seeded a topic with ${COMMENTS} comments`);
    const probe = healthProbe();
    // Warm-up: the first requests load code.
    await post({ query: '{ serverInfo { version } }' });
    await new Promise((r) => setTimeout(r, 1000));
    probe.window();
    const rssStart = rssBytes(agora.pid);
    for (const attack of process.env.ABUSE_ONLY_DISTINCT ? [] : catalog({ topic, token })) {
      const rssBefore = rssBytes(agora.pid);
      const started = performance.now();
      const answers = await attack.run();
      const ms = performance.now() - started;
      await new Promise((r) => setTimeout(r, 200));
      const row = {
        name: attack.name,
        requests: answers.length,
        answerMs: Math.round(Math.max(...answers.map((a) => a.ms))),
        statuses: [...new Set(answers.map((a) => a.status))].join(','),
        healthzMaxMs: Math.round(probe.window()),
        rssBeforeMiB: +(rssBefore / MiB).toFixed(1),
        rssAfterMiB: +(rssBytes(agora.pid) / MiB).toFixed(1),
        wallMs: Math.round(ms),
        sample: answers[0].text.slice(0, 160),
      };
      row.ok = row.answerMs <= ANSWER_MS && row.healthzMaxMs <= HEALTH_MS;
      if (!row.ok) exit = 1;
      results.attacks.push(row);
      log(
        `${row.ok ? 'ok  ' : 'FAIL'} ${row.name}: answered in ${row.answerMs} ms (${row.statuses}), ` +
          `/healthz max ${row.healthzMaxMs} ms, RSS ${row.rssBeforeMiB} → ${row.rssAfterMiB} MiB`,
      );
    }
    const d = await distinctAttack(agora.pid);
    const distinct = {
      name: `${DISTINCT} distinct documents, each sent three times`,
      requests: DISTINCT * 3,
      refused: d.refused,
      answerMs: Math.round(d.slowest),
      healthzMaxMs: Math.round(probe.window()),
      rssBeforeMiB: +(d.rssBefore / MiB).toFixed(1),
      rssPeakMiB: +(d.rssPeak / MiB).toFixed(1),
      rssAfterMiB: +(d.rssAfter / MiB).toFixed(1),
      rssSettlingMiB: d.settling,
      heapBeforeMiB: d.heapBefore,
      heapAfterMiB: d.heapAfter,
      seconds: +d.seconds.toFixed(1),
    };
    distinct.ok =
      distinct.answerMs <= ANSWER_MS && distinct.healthzMaxMs <= HEALTH_MS && d.rssAfter - d.rssBefore <= RSS_DISTINCT;
    if (!distinct.ok) exit = 1;
    results.distinct = distinct;
    log(
      `${distinct.ok ? 'ok  ' : 'FAIL'} ${distinct.name}: slowest ${distinct.answerMs} ms, /healthz max ` +
        `${distinct.healthzMaxMs} ms, RSS ${distinct.rssBeforeMiB} → peak ${distinct.rssPeakMiB} → after ` +
        `${distinct.rssAfterMiB} MiB, V8 heap in use ${distinct.heapBeforeMiB} → ${distinct.heapAfterMiB} MiB`,
    );
    await probe.stop();
    const rssEnd = rssBytes(agora.pid);
    results.rss = { startMiB: +(rssStart / MiB).toFixed(1), endMiB: +(rssEnd / MiB).toFixed(1) };
    results.rss.ok = rssEnd - rssStart <= RSS_CATALOG;
    if (!results.rss.ok) exit = 1;
    results.when = new Date().toISOString();
    results.loadAverage = os.loadavg().map((l) => +l.toFixed(2));
    const gib = (os.totalmem() / 1024 ** 3).toFixed(0);
    results.machine = `${os.cpus().length} cores, ${gib} GiB, Node ${process.version}`;
    results.serverNodeArgs = benchNodeArgs().join(' ');
    write(results);
  } catch (err) {
    log(`setup or run failed: ${err.stack ?? err}`);
    exit = exit || 2;
  } finally {
    await agora.stop();
    await db.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(exit);
}

function distinctLine(d) {
  return (
    `Distinct documents: ${d.name} (${d.requests} requests, ${d.refused} refused, ${d.seconds} s): ` +
    `slowest answer ${d.answerMs} ms, longest /healthz ${d.healthzMaxMs} ms, RSS ${d.rssBeforeMiB} → peak ` +
    `${d.rssPeakMiB} → ${d.rssAfterMiB} MiB ${SETTLE_SECONDS} s after (every 5 s: ` +
    `${(d.rssSettlingMiB ?? []).join(', ')}; V8 heap in use ${d.heapBeforeMiB} → ${d.heapAfterMiB} MiB; ` +
    `target ≤ +${RSS_DISTINCT / MiB} MiB of RSS): ${d.ok ? 'held' : '**not held**'}.`
  );
}

function write(results) {
  const dir = path.join(__dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'abuse.json'), `${JSON.stringify(results, null, 2)}\n`);
  const lines = [
    `# Abuse run (bench/abuse.js), ${results.when}`,
    '',
    `${results.machine}; server flags \`${results.serverNodeArgs}\`; load average ${results.loadAverage.join(' / ')} ` +
      '(timings move with whatever else runs: read the load against the core count).',
    `Targets: answered ≤ ${ANSWER_MS} ms, /healthz ≤ ${HEALTH_MS} ms, ` +
      `RSS growth ≤ ${RSS_CATALOG / MiB} MiB over the catalog.`,
    '',
    '| attack | requests | answered in | status | longest /healthz | RSS before → after | ok |',
    '|---|---|---|---|---|---|---|',
    ...results.attacks.map(
      (a) =>
        `| ${a.name} | ${a.requests} | ${a.answerMs} ms | ${a.statuses} | ${a.healthzMaxMs} ms | ` +
        `${a.rssBeforeMiB} → ${a.rssAfterMiB} MiB | ${a.ok ? 'yes' : '**no**'} |`,
    ),
    '',
    distinctLine(results.distinct),
    '',
    `RSS over the whole run: ${results.rss.startMiB} → ${results.rss.endMiB} MiB ` +
      `(target ≤ +${RSS_CATALOG / MiB} MiB): ` +
      `${results.rss.ok ? 'held' : '**not held**'}.`,
    '',
  ];
  fs.writeFileSync(path.join(dir, 'abuse.md'), lines.join('\n'));
}

main();
