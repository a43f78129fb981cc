/**
 * Where an upload's writes go (src/storage/write-placement.ts): inline while the kernel takes them
 * cheaply, on the pool while it does not, with an inline probe now and then to notice the change back.
 */
import { MEASURED_BYTES, PROBE_EVERY, SLOW_MS_PER_MIB, WritePlacement } from '../../../src/storage/write-placement';

const MiB = 1024 * 1024;

/** How many of the next `n` writes `p` places inline. */
function inlineOf(p: WritePlacement, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (p.inline()) k++;
  return k;
}

describe('WritePlacement', () => {
  it('writes inline before it has measured anything, and while writes are cheap', () => {
    const p = new WritePlacement();
    expect(inlineOf(p, 100)).toBe(100);
    for (let i = 0; i < 20; i++) p.record(256 * 1024, 0.06);
    expect(p.averageMsPerMiB).toBeCloseTo(0.24, 5);
    expect(inlineOf(p, 100)).toBe(100);
  });

  it('sends writes to the pool while they are slow, keeping one in PROBE_EVERY inline', () => {
    const p = new WritePlacement();
    for (let i = 0; i < 20; i++) p.record(256 * 1024, 0.6);
    expect(p.averageMsPerMiB).toBeGreaterThan(SLOW_MS_PER_MIB);
    expect(inlineOf(p, PROBE_EVERY * 10)).toBe(10);
  });

  it('comes back inline once the probes find writes cheap again', () => {
    const p = new WritePlacement();
    for (let i = 0; i < 20; i++) p.record(MiB, 2.4);
    let probes = 0;
    while (p.averageMsPerMiB > SLOW_MS_PER_MIB) {
      if (p.inline()) {
        probes++;
        p.record(MiB, 0.25);
      }
    }
    // A moving average: a handful of cheap probes turns it, not one and not hundreds.
    expect(probes).toBeGreaterThan(1);
    expect(probes).toBeLessThan(10);
    expect(inlineOf(p, 50)).toBe(50);
  });

  it('does not time writes too short to give a rate', () => {
    const p = new WritePlacement();
    p.record(MEASURED_BYTES - 1, 5);
    expect(p.averageMsPerMiB).toBe(0);
    expect(inlineOf(p, 10)).toBe(10);
  });

  it('timed() returns the write’s result and records its time', () => {
    const p = new WritePlacement();
    const start = Date.now();
    const n = p.timed(() => {
      while (Date.now() - start < 20) {
        /* a write the kernel made slow */
      }
      return MiB;
    });
    expect(n).toBe(MiB);
    expect(p.averageMsPerMiB).toBeGreaterThanOrEqual(15);
    expect(p.inline()).toBe(false);
  });
});
