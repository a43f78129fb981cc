/**
 * The files benchmark's client: Node's own `fetch` (undici), keep-alive, a fixed number of workers
 * each sending its next request as soon as the previous answer was read. It is an ordinary client,
 * the one a user's script would use, and the same for every server measured (Agora, the Node
 * baselines, an external server such as linx-server), so a ratio compares servers, not clients.
 * Its own CPU cost shares the machine with the server: the benchmark therefore also reports the
 * server's CPU per request (from /proc), which the client cannot blur.
 */
'use strict';
const { cpuSeconds } = require('./memory');

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Reads a response body to its end, counting and dropping the bytes; returns the count. */
async function drain(res) {
  let bytes = 0;
  if (!res.body) return 0;
  for await (const chunk of res.body) bytes += chunk.byteLength;
  return bytes;
}

/**
 * Sends `count` requests, `request(i)` → { url, init, keepBody } making the i-th, over
 * `connections` workers. A body is kept (as text) only when `keepBody` is set, otherwise counted
 * and dropped. `pids`, when given, are the server processes whose CPU time the run is charged.
 * Resolves { requests, seconds, requestsPerSecond, p50Ms, p99Ms, latenciesMs (sorted), bodyBytes,
 * non2xx, errors, bodies, cpuMsPerRequest, cpuMsByPid } (cpuMsPerRequest: summed over `pids`, NaN
 * without them).
 */
async function run({ request, count, connections = 8, duration, pids = [] }) {
  const latencies = [];
  const bodies = [];
  let next = 0;
  let non2xx = 0;
  let errors = 0;
  let bodyBytes = 0;
  let firstError;
  const cpu0 = pids.map(cpuSeconds);
  const t0 = process.hrtime.bigint();
  const deadline = duration ? Number(t0) + duration * 1e9 : Infinity;
  const worker = async () => {
    while (next < count && Number(process.hrtime.bigint()) < deadline) {
      const i = next++;
      const { url, init, keepBody } = request(i);
      const started = process.hrtime.bigint();
      try {
        const res = await fetch(url, init);
        if (keepBody || res.status < 200 || res.status > 299) {
          const text = await res.text();
          bodyBytes += Buffer.byteLength(text);
          bodies[i] = text;
        } else {
          // Not `bodyBytes += await …`: that reads bodyBytes before the await and loses the other workers' bytes.
          const n = await drain(res);
          bodyBytes += n;
        }
        if (res.status < 200 || res.status > 299) {
          non2xx++;
          firstError ??= `${init?.method ?? 'GET'} ${url} → ${res.status} ${String(bodies[i]).slice(0, 200)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= `${init?.method ?? 'GET'} ${url}: ${err.cause?.message ?? err.message}`;
      }
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const done = latencies.length;
  const cpuMsByPid = pids.map((pid, k) => (done > 0 ? ((cpuSeconds(pid) - cpu0[k]) * 1000) / done : NaN));
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: done,
    seconds,
    requestsPerSecond: done / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    latenciesMs: sorted,
    bodyBytes,
    non2xx,
    errors,
    firstError,
    bodies,
    cpuMsPerRequest: pids.length > 0 ? cpuMsByPid.reduce((a, b) => a + b, 0) : NaN,
    cpuMsByPid,
  };
}

module.exports = { run, drain, percentile };
