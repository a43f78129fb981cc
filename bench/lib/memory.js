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

/** CPU seconds (user + system) a process used so far (Linux /proc), or NaN elsewhere. */
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

module.exports = { rssBytes, sampleRss, cpuSeconds };
