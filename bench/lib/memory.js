/**
 * Resident memory of a process (Linux /proc): its peak growth over a stretch of work.
 *
 * The kernel itself tracks a process's peak resident set (VmHWM), and writing `5` to
 * /proc/<pid>/clear_refs resets that peak to the current resident set. So `sampleRss(pid)` resets
 * the peak and reads VmRSS as the baseline, and `stop()` reads VmHWM: the exact peak over the
 * work, however short a spike was and however busy the sampling process (the benchmark client runs
 * in it) was. A 5 ms VmRSS sampler runs alongside as a fallback where clear_refs is not writable
 * (not the owner, not Linux) and as a cross-check (its peak can only be lower).
 *
 * The baseline is what the process holds when sampling starts: take it after a warm-up, so code
 * loaded and pools opened on first use do not count as the work's growth, and before other heavy
 * phases, whose freed-but-kept heap would hide the work's own need (see bench/files.js).
 */
'use strict';
const fs = require('node:fs');

const KiB = 1024;

function statusField(pid, field) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * KiB : 0;
}

function rssBytes(pid) {
  return statusField(pid, 'VmRSS');
}

/** Resets the kernel's peak-RSS counter of `pid` to its current RSS; false when not allowed. */
function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts measuring; `stop()` returns { baseline, peak, growth, method, sampledPeak } in bytes.
 * `method` is 'VmHWM' (kernel peak, exact) or 'sampled' (VmRSS every `intervalMs`). `lap()`
 * returns the same for the stretch since the previous lap (or the start), still measured against
 * the first baseline, plus `lapGrowth`: its peak over the RSS it started with; it starts the next
 * stretch. `stop()` covers them all.
 */
function sampleRss(pid, intervalMs = 5) {
  const hwm = resetPeak(pid);
  const baseline = rssBytes(pid);
  let sampledPeak = baseline;
  let lapSampledPeak = baseline;
  let overall = baseline;
  let lapStart = baseline;
  const sample = () => {
    const v = rssBytes(pid);
    if (v > sampledPeak) sampledPeak = v;
    if (v > lapSampledPeak) lapSampledPeak = v;
  };
  const timer = setInterval(() => {
    try {
      sample();
    } catch {
      /* process gone */
    }
  }, intervalMs);
  const lap = () => {
    let peak = lapSampledPeak;
    try {
      sample();
      peak = hwm ? Math.max(statusField(pid, 'VmHWM'), lapSampledPeak) : lapSampledPeak;
      if (hwm) resetPeak(pid);
    } catch {
      /* process gone: the samples are all there is */
    }
    const result = {
      baseline,
      peak,
      growth: peak - baseline,
      lapGrowth: peak - lapStart,
      method: hwm ? 'VmHWM' : 'sampled',
      sampledPeak: lapSampledPeak,
    };
    overall = Math.max(overall, peak);
    lapSampledPeak = 0;
    try {
      lapStart = rssBytes(pid);
    } catch {
      /* process gone */
    }
    return result;
  };
  return {
    lap,
    stop() {
      clearInterval(timer);
      lap();
      return { baseline, peak: overall, growth: overall - baseline, method: hwm ? 'VmHWM' : 'sampled', sampledPeak };
    },
  };
}

/** CPU seconds (user + system) from /proc/<pid>/stat: counted in clock ticks of 10 ms. */
function tickCpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

// Last run time (ns) seen of each thread, by process: a thread that ends keeps its last reading.
const threadRuntimes = new Map();

/**
 * CPU seconds a process used so far, summed over its threads' run time in /proc/<pid>/task/<tid>/schedstat
 * (nanoseconds, user and system). The 10 ms ticks of /proc/<pid>/stat are too coarse for a figure per
 * request: 200 downloads at ~0.3 ms each are only ~6 ticks, so a ratio of two servers could read 1.33×
 * where it is 1.1×. A thread that ends between two readings loses only its run time since the last one.
 * Falls back on the ticks where schedstat is missing. NaN when the process is gone or off Linux.
 */
function cpuSeconds(pid) {
  try {
    let seen = threadRuntimes.get(pid);
    if (!seen) threadRuntimes.set(pid, (seen = new Map()));
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        seen.set(tid, Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
      } catch {
        /* the thread ended while being listed */
      }
    }
    let ns = 0;
    for (const v of seen.values()) ns += v;
    // No schedstat (a kernel without it reads 0): the ticks are all there is.
    return ns > 0 ? ns / 1e9 : tickCpuSeconds(pid);
  } catch {
    try {
      return tickCpuSeconds(pid);
    } catch {
      return NaN;
    }
  }
}

module.exports = { rssBytes, sampleRss, resetPeak, cpuSeconds };
