/**
 * Writes bench/results/latest.json and a Markdown table of the same figures. A run of one group
 * keeps the other group's figures from the previous latest.json, marked with their date.
 */
'use strict';
const { tusTable } = require('./tus');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, 'results');

function filesTable(f) {
  if (!f.durableRatios?.download1MiBDistinct) return '(figures of an earlier files benchmark: see git history)';
  const targets = [
    ['agora', 'Agora'],
    ['baseline', 'Baseline (plain Node)'],
    ['durableBaseline', 'Baseline + fsync'],
  ];
  if (f.external) targets.push(['external', f.external.name]);
  const big = f.bigLabel ?? '1 GiB';
  const rps = (m) => `${m.requestsPerSecond} req/s (p50 ${m.p50Ms} ms)`;
  const withDb = (m, key) =>
    key === 'agora' && m.serverCpuMsWithDb !== undefined ? ` (${m.serverCpuMsWithDb} with the DB)` : '';
  const cpu = (m, key) => `${m.serverCpuMs} ms${withDb(m, key)}`;
  const ratiosOf = { baseline: f.ratios, durableBaseline: f.durableRatios, external: f.externalRatios };
  const ratioCols = (key) => {
    const cols = [`÷ baseline ${f.ratios[key]}×`, `÷ fsync baseline ${f.durableRatios[key]}×`];
    if (f.externalRatios) cols.push(`÷ ${f.external.name} ${f.externalRatios[key]}×`);
    return cols.join(', ');
  };
  const row = (label, key, pick, ratioKey = key) =>
    `| ${label} | ${targets.map(([k]) => pick(f[k][key], k)).join(' | ')} | ${ratioKey ? ratioCols(ratioKey) : ''} |`;
  const rssMethod = f.agora.rss1GiB?.method === 'VmHWM' ? 'kernel peak VmHWM' : 'sampled VmRSS';
  const rssCells = targets.map(([k]) => `${f[k].rssGrowth1GiBMiB} MiB`).join(' | ');
  return [
    `Client: ${f.client}. ${f.rounds ? `${f.rounds} rounds of ` : ''}${f.distinctFiles} distinct 1 MiB files ` +
      `uploaded${f.rounds ? ' to each server' : ' per run'}, then each downloaded once ` +
      '(page cache warm, as after an upload' +
      (f.downloadTurn
        ? `; the servers take turns every ${f.downloadTurn} downloads, after ${f.roundWarmFiles} unmeasured ones each`
        : '') +
      '); the hot row downloads one file over and over' +
      (f.rounds
        ? '. The 1 MiB rows take the median of the ratios within each round (runs seconds apart), per server ' +
          'the median of its runs'
        : '') +
      '. Server CPU: user + ' +
      'system time of the server process per request, from /proc (for Agora also with its embedded ' +
      "database's process)." +
      (f.disk
        ? ` Disk: ${f.disk.freeGiB} GiB free of ${f.disk.totalGiB} at start; the group writes ~${f.disk.needGiB} GiB` +
          (f.disk.low ? ' — **too little: a nearly full file system slows every upload, figures distorted**.' : '.')
        : ''),
    '',
    `| Files | ${targets.map(([, label]) => label).join(' | ')} | Agora ratios |`,
    `|---|${targets.map(() => '---|').join('')}---|`,
    row(`Upload 1 MiB, ${f.distinctFiles} distinct files`, 'upload1MiB', rps),
    row('… server CPU per upload', 'upload1MiB', cpu, 'cpuPerUpload'),
    row(`Download 1 MiB, ${f.distinctFiles} distinct files`, 'download1MiBDistinct', rps),
    row('… server CPU per download', 'download1MiBDistinct', cpu, 'cpuPerDownloadDistinct'),
    row('Download 1 MiB, one hot file', 'download1MiBHot', rps),
    row('… server CPU per download', 'download1MiBHot', cpu, null),
    row(`Upload ${big}`, 'upload1GiB', (m) => `${m.MBps} MB/s`),
    row(
      `Download ${big}${f.bigDownloads ? ` (median of ${f.bigDownloads})` : ''}`,
      'download1GiB',
      (m) => `${m.MBps} MB/s`,
    ),
    `| Peak RSS growth, ${big} up + down (${rssMethod}) | ${rssCells} | |`,
    ...(f.durableRatios.rounds
      ? [
          '',
          'Agora ÷ each server, round by round (1 MiB uploads; distinct downloads): ' +
            targets
              .slice(1)
              .map(([k, label]) => {
                const r = ratiosOf[k].rounds;
                return `${label} ${r.upload1MiB.join(', ')}; ${r.download1MiBDistinct.join(', ')}`;
              })
              .join(' — ') +
            '.',
        ]
      : []),
    ...(f.baselineUploadsToExternal
      ? [
          '',
          `The baselines hash and write each upload as ${f.external.name} does and nothing else (no metadata, ` +
            `no database): their 1 MiB uploads/s ÷ ${f.external.name}'s are ` +
            `${f.baselineUploadsToExternal.baseline}× (plain) and ${f.baselineUploadsToExternal.durableBaseline}× ` +
            '(with fsync), what a plain Node server reaches beside it on this machine.',
        ]
      : []),
  ].join('\n');
}

function apiTable(a) {
  const lines = [
    `Dataset: ${a.dataset.users} users, ${a.dataset.topics} topics, ${a.dataset.comments} comments ` +
      `(topic ${a.dataset.bigTopic.id36}: ${a.dataset.bigTopic.comments} comments, ` +
      `${a.dataset.bigTopic.topLevel} top-level, depth ${a.dataset.bigTopic.maxDepth}), ` +
      `${a.dataset.votes} votes, ${a.dataset.bookmarks} bookmarks, ${a.dataset.labels} labels. Logged in ` +
      `as ${a.viewer}.`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | p50 ms, 1 connection | DB commands / request | DB ms / ' +
      'request | server ms / request | server CPU ms / request | load |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const s of a.scenarios)
    lines.push(
      `| ${s.name} | ${s.requestsPerSecond} | ${s.p50Ms} | ${s.p99Ms} | ${s.p50OneConnectionMs ?? 'n/a'} ` +
        `| ${s.commandsPerRequest} | ${s.dbMsPerRequest} | ${s.serverMsPerRequest ?? 'n/a'} | ` +
        `${s.serverCpuMsPerRequest ?? 'n/a'} | ${s.mode} |`,
    );
  lines.push(
    '',
    'req/s, p50 and p99: under the load in the last column (several connections queue behind each other ' +
      "on the machine's cores). p50, 1 connection: one request at a time. DB ms: time waiting for " +
      'database replies (summed over the commands of a request). Server ms: latency at one connection ' +
      "minus DB ms (n/a when a request's commands overlap). Server CPU ms: CPU time of the server " +
      'process per request (JavaScript, BSON decoding, GC), from /proc, its idle rate subtracted.',
  );
  if (a.ratios && Object.keys(a.ratios).length > 0) {
    lines.push('', '| GraphQL ÷ REST throughput | ratio |', '|---|---|');
    for (const [k, v] of Object.entries(a.ratios)) lines.push(`| ${k} | ${v}× |`);
  }
  if (a.bounds && a.bounds.length > 0) {
    lines.push('', '| Commands per request | sizes | REST | GraphQL | constant |', '|---|---|---|---|---|');
    for (const b of a.bounds)
      lines.push(
        `| ${b.name} | ${b.sizes} | ${b.rest.join(' → ')} | ${b.graphql.join(' → ')} | ` +
          `${b.constant ? 'yes' : 'NO'} |`,
      );
  }
  return lines.join('\n');
}

function carryOver(results) {
  let previous;
  try {
    previous = JSON.parse(fs.readFileSync(path.join(dir, 'latest.json'), 'utf8'));
  } catch {
    return;
  }
  for (const group of ['api', 'files']) {
    if (!results[group] && previous[group]) {
      results[group] = {
        ...previous[group],
        from: previous[group].from ?? { date: previous.date, database: previous.database, machine: previous.machine },
      };
    }
  }
}

/**
 * The machine's CPU and fsync probes (bench/lib/cpu-probe.js, fsync-probe.js) for the header; results
 * from before them carry none.
 */
function probe(m) {
  if (m.cpuProbeMs === undefined) return '';
  const end = m.cpuProbeMsAtEnd === undefined ? '' : `, ${m.cpuProbeMsAtEnd} ms at the end`;
  const fsyncEnd = m.fsyncProbeUsAtEnd === undefined ? '' : `, ${m.fsyncProbeUsAtEnd} µs at the end`;
  const fsync = m.fsyncProbeUs === undefined ? '' : `; fsync probe ${m.fsyncProbeUs} µs at the start${fsyncEnd}`;
  return `, CPU probe ${m.cpuProbeMs} ms at the start${end}${fsync}`;
}

function writeReport(results) {
  fs.mkdirSync(dir, { recursive: true });
  carryOver(results);
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const m = results.machine;
  const section = (title, group, table) => {
    if (!group) return [];
    const from = group.from ? ` (from an earlier run, ${group.from.date.slice(0, 16).replace('T', ' ')} UTC)` : '';
    return [`## ${title}${from}`, '', table(group), ''];
  };
  const md = [
    `# Agora benchmark — ${results.date.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${m.cores} cores (${m.cpu}${probe(m)}), ${m.memoryGiB} GiB, Node ${m.node}; load average ` +
      `${m.loadAverageAtStart?.join(' ') ?? '?'} at start, ${m.loadAverageAtEnd?.join(' ') ?? '?'} at ` +
      `end. Database: ${results.database}. Each figure is the median of ${results.options.runs} ` +
      `runs${results.options.rounds ? ` (the files group's 1 MiB rows: of ${results.options.rounds} rounds)` : ''}.` +
      `${results.minutes ? ` The run took ${results.minutes} minutes.` : ''}`,
    '',
    ...section('API', results.api, apiTable),
    ...section('Files', results.files, filesTable),
    ...section('Resumable uploads (tus)', results.tus, tusTable),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), md);
  process.stdout.write(`${md}\n`);
}

module.exports = { writeReport };
