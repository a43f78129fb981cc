/**
 * How long this machine's disk takes to make a small write durable: the median of 200 fsyncs, each
 * after appending 4 KiB to a file in `dir` (the file system the benchmark's data lives on). Every
 * write figure depends on it: an upload waits for fsyncs, and the database syncs its journal. It
 * also moves on one machine (the Xeon of bench/README.md read ~80 µs one hour and several times that
 * another), so reports carry it beside the CPU probe, at the start and at the end of a run.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Microseconds, the median of 200 append-and-fsync rounds (lower is faster). */
function fsyncProbeUs(dir = os.tmpdir()) {
  const file = path.join(dir, `fsync-probe-${process.pid}-${Date.now()}`);
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  const times = [];
  try {
    for (let i = 0; i < 200; i++) {
      fs.writeSync(fd, block, 0, block.length, i * block.length);
      const t0 = process.hrtime.bigint();
      fs.fsyncSync(fd);
      times.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  times.sort((a, b) => a - b);
  return Math.round(times[times.length >> 1]);
}

module.exports = { fsyncProbeUs };
