/**
 * Resumable uploads against plain ones (docs/files-api.md §4.9): the big file (BENCH_BIG_MB, 1 GiB)
 * sent to Agora with `PUT /upload` and, alternating run by run, with tus (POST /upload/resumable, then
 * PATCHes of TUS_CHUNK_MB, 50 MiB, each waiting for the previous answer, as tus-js-client does),
 * uninterrupted. Reports MB/s of each (median), their ratio, the server's CPU seconds per upload (its
 * threads' schedstat: the figure the shared machine blurs least), and the server's peak RSS growth
 * over the tus uploads.
 */
'use strict';
const fs = require('node:fs');
const { sampleRss, cpuSeconds } = require('./lib/memory');
const { median, round } = require('./lib/stats');

const MiB = 1024 * 1024;
const CHUNK = Number(process.env.TUS_CHUNK_MB ?? 50) * MiB;
const TUS = { 'tus-resumable': '1.0.0' };

async function ok(res, what) {
  const body = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${body}`);
  return { res, body };
}

async function putOnce(url, blob) {
  const { body } = await ok(
    await fetch(`${url}/upload/big.bin`, {
      method: 'PUT',
      headers: { accept: 'application/json', 'files-randomize': 'yes' },
      body: blob,
      duplex: 'half',
    }),
    'PUT',
  );
  return JSON.parse(body);
}

async function tusOnce(url, blob) {
  const { res } = await ok(
    await fetch(`${url}/upload/resumable`, {
      method: 'POST',
      headers: {
        ...TUS,
        'upload-length': String(blob.size),
        'upload-metadata': `filename ${Buffer.from('big.bin').toString('base64')}`,
        'files-randomize': 'yes',
      },
    }),
    'tus creation',
  );
  const location = new URL(res.headers.get('location')).pathname;
  for (let offset = 0; offset < blob.size; offset += CHUNK) {
    const part = blob.slice(offset, Math.min(blob.size, offset + CHUNK));
    await ok(
      await fetch(`${url}${location}`, {
        method: 'PATCH',
        headers: { ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
        body: part,
        duplex: 'half',
      }),
      `PATCH at ${offset}`,
    );
  }
  const { body } = await ok(await fetch(`${url}${location}`, { headers: { accept: 'application/json' } }), 'GET');
  return JSON.parse(body);
}

async function timed(pid, fn) {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const result = await fn();
  return { seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSeconds(pid) - cpu0, result };
}

/** `agora`: { url, pid }; `bigFile`: the file to send. */
async function runTusBench({ agora, bigFile, opts, settle = () => {} }) {
  const bytes = fs.statSync(bigFile).size;
  const put = [];
  const tus = [];
  let rssGrowth = 0;
  let rssMethod = '';
  for (let i = 0; i < opts.runs; i++) {
    // Alternating which goes first, so a change in the machine's load reaches both alike.
    const order = i % 2 ? ['tus', 'put'] : ['put', 'tus'];
    for (const kind of order) {
      settle();
      const blob = await fs.openAsBlob(bigFile);
      if (kind === 'put') put.push(await timed(agora.pid, () => putOnce(agora.url, blob)));
      else {
        const rss = sampleRss(agora.pid);
        const r = await timed(agora.pid, () => tusOnce(agora.url, blob));
        const m = rss.stop();
        rssGrowth = Math.max(rssGrowth, m.growth);
        rssMethod = m.method;
        if (r.result.size !== String(bytes)) throw new Error(`tus upload stored ${r.result.size} bytes of ${bytes}`);
        tus.push(r);
      }
    }
  }
  const MBps = (runs) => round(bytes / 1e6 / median(runs.map((r) => r.seconds)));
  const cpu = (runs) => round(median(runs.map((r) => r.cpuSeconds)), 2);
  const out = {
    bytes,
    chunkMiB: CHUNK / MiB,
    put: { MBps: MBps(put), cpuSeconds: cpu(put), all: put.map((r) => round(bytes / 1e6 / r.seconds)) },
    tus: { MBps: MBps(tus), cpuSeconds: cpu(tus), all: tus.map((r) => round(bytes / 1e6 / r.seconds)) },
    rssGrowthMiB: round(rssGrowth / MiB),
    rssMethod,
  };
  out.ratio = round(out.tus.MBps / out.put.MBps, 2);
  return out;
}

/** The report's lines for it. */
function tusTable(t) {
  const size = t.bytes >= 1024 * MiB ? `${round(t.bytes / 1024 / MiB)} GiB` : `${round(t.bytes / MiB)} MiB`;
  return [
    `| Upload ${size} to Agora | MB/s (median) | server CPU s / upload | runs (MB/s) |`,
    '|---|---|---|---|',
    `| PUT /upload | ${t.put.MBps} | ${t.put.cpuSeconds} | ${t.put.all.join(', ')} |`,
    `| tus, ${t.chunkMiB} MiB PATCHes | ${t.tus.MBps} | ${t.tus.cpuSeconds} | ${t.tus.all.join(', ')} |`,
    '',
    `tus ÷ PUT: ${t.ratio}×; peak RSS growth over a tus upload: ${t.rssGrowthMiB} MiB (${t.rssMethod}).`,
  ].join('\n');
}

module.exports = { runTusBench, tusTable };
