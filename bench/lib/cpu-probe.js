/**
 * How fast one core of this machine runs JavaScript: the time of a fixed single-threaded workload
 * (JSON out and back, string building, integer arithmetic, as a request handler does), the best of
 * five. Machines of the same kind ("2 cores") differ by several times here (an AMD EPYC and an
 * Intel Xeon @ 2.50GHz measured the same code at 1.0 and 3.5–3.8 ms of server CPU per request under
 * bench/load.js), and one machine's speed varies with what else its host runs (the Xeon read 55 and
 * 117 ms a minute apart). Reports carry it, at the start and at the end of a run, to tell a slower
 * machine from a slower server.
 */
'use strict';

function workload() {
  const rows = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `user${i}`, votes: i * 7, tags: ['a', 'b'] }));
  let check = 0;
  for (let r = 0; r < 40; r++) {
    const back = JSON.parse(JSON.stringify(rows));
    for (const row of back) check = (check + row.votes + row.name.length) | 0;
  }
  for (let i = 0; i < 2e7; i++) check = (check + (i & 7)) | 0;
  return check;
}

/** Milliseconds of the workload, best of five (lower is faster). */
function cpuProbeMs() {
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    workload();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return Math.round(best * 10) / 10;
}

module.exports = { cpuProbeMs };
