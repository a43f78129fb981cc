/** Samples a process's resident set size (Linux /proc) to find its peak growth during a run. */
'use strict';
const fs = require('node:fs');

function rssBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Starts sampling every `intervalMs`; `stop()` returns { baseline, peak, growth } in bytes. */
function sampleRss(pid, intervalMs = 20) {
  const baseline = rssBytes(pid);
  let peak = baseline;
  const timer = setInterval(() => {
    try {
      const v = rssBytes(pid);
      if (v > peak) peak = v;
    } catch {
      /* process gone */
    }
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return { baseline, peak, growth: peak - baseline };
    },
  };
}

module.exports = { rssBytes, sampleRss };
