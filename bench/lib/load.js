/** autocannon runs, repeated for a median; every figure comes from one run of the suite. */
'use strict';
const autocannon = require('autocannon');
const { median, round } = require('./stats');

function once(opts) {
  return new Promise((resolve, reject) => {
    const o = { connections: 10, ...opts };
    if (o.amount === undefined && o.duration === undefined) o.duration = 5;
    if (o.duration === undefined) delete o.duration;
    autocannon(o, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/**
 * Runs `opts` `runs` times and reports medians: requests/s, p50/p99 latency (ms), bytes/s, and the
 * count of non-2xx responses and errors over all runs (any is a failed benchmark).
 */
async function measure(opts, runs = 3, between) {
  const results = [];
  for (let i = 0; i < runs; i++) {
    if (between) await between(i);
    results.push(await once(opts));
  }
  return {
    requestsPerSecond: round(median(results.map((r) => r.requests.average))),
    p50Ms: round(median(results.map((r) => r.latency.p50)), 2),
    p99Ms: round(median(results.map((r) => r.latency.p99)), 2),
    bytesPerSecond: Math.round(median(results.map((r) => r.throughput.average))),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    runs,
  };
}

module.exports = { measure, once };
