/** Writes bench/results/latest.json and a Markdown table of the same figures. */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, 'results');

function filesTable(f) {
  const row = (label, key, unit, pick) => `| ${label} | ${pick(f.agora[key])} | ${pick(f.baseline[key])} | ${f.ratios[key]}× |`;
  const rps = (m) => `${m.requestsPerSecond} req/s (p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms)`;
  const mbps = (m) => `${m.MBps} MB/s`;
  return [
    '| Files | Agora | Baseline (plain Node) | Ratio |',
    '|---|---|---|---|',
    row('Upload 1 MiB', 'upload1MiB', '', rps),
    row('Download 1 MiB', 'download1MiB', '', rps),
    row('Upload 1 GiB', 'upload1GiB', '', mbps),
    row('Download 1 GiB', 'download1GiB', '', mbps),
    `| Peak RSS growth, 1 GiB up + down | ${f.agora.rssGrowth1GiBMiB} MiB | ${f.baseline.rssGrowth1GiBMiB} MiB | |`,
  ].join('\n');
}

function apiTable(a) {
  const lines = ['| Scenario | req/s | p50 ms | p99 ms | DB commands / request |', '|---|---|---|---|---|'];
  for (const s of a.scenarios) lines.push(`| ${s.name} | ${s.requestsPerSecond} | ${s.p50Ms} | ${s.p99Ms} | ${s.commandsPerRequest} |`);
  if (a.ratios) {
    lines.push('', '| GraphQL ÷ REST throughput | ratio |', '|---|---|');
    for (const [k, v] of Object.entries(a.ratios)) lines.push(`| ${k} | ${v}× |`);
  }
  return lines.join('\n');
}

function writeReport(results) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const md = [
    `# Agora benchmark — ${results.date.slice(0, 10)}`,
    '',
    `Machine: ${results.machine.cores} cores (${results.machine.cpu}), ${results.machine.memoryGiB} GiB, Node ${results.machine.node}. Database: ${results.database}. Each figure is the median of ${results.options.runs} runs.`,
    '',
    results.api ? apiTable(results.api) : '',
    '',
    results.files ? filesTable(results.files) : '',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), md);
  process.stdout.write(`${md}\n`);
}

module.exports = { writeReport };
