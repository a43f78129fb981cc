import { ENTRY_OVERHEAD as O, ObjectCache } from '../../../src/storage/object-cache';

const buf = (n: number, fill = 1) => Buffer.alloc(n, fill);

describe('ObjectCache', () => {
  it('admits an object on its second read, not its first', () => {
    const c = new ObjectCache(1000 + 4 * O, 100);
    expect(c.get('a')).toBeUndefined();
    expect(c.shouldAdmit('a')).toBe(false);
    expect(c.get('a')).toBeUndefined();
    expect(c.shouldAdmit('a')).toBe(true);
    c.set('a', buf(10));
    expect(c.get('a')?.length).toBe(10);
    // Each entry counts its bytes and a fixed overhead (the Buffer object, the id).
    expect(c.stats()).toMatchObject({ hits: 1, misses: 2, admitted: 1, entries: 1, bytes: 10 + O });
  });

  it('never holds more than its capacity, evicting the least recently used first', () => {
    const cap = 250 + 2 * O;
    const c = new ObjectCache(cap, 100);
    for (let i = 0; i < 20; i++) {
      c.set(`k${i}`, buf(60 + (i % 3) * 20));
      expect(c.stats().bytes).toBeLessThanOrEqual(cap);
    }
    expect(c.stats().evicted).toBeGreaterThan(0);
    c.set('x', buf(100));
    c.set('y', buf(100));
    c.get('x');
    c.set('z', buf(100)); // evicts y (x was used more recently)
    expect(c.get('x')).toBeDefined();
    expect(c.get('y')).toBeUndefined();
    expect(c.get('z')).toBeDefined();
    expect(c.stats().bytes).toBeLessThanOrEqual(cap);
  });

  it('refuses objects over its largest object size or its capacity, and caches nothing at capacity 0', () => {
    const c = new ObjectCache(1000 + 4 * O, 100);
    expect(c.accepts(101)).toBe(false);
    expect(new ObjectCache(100 + O, 1000).accepts(101)).toBe(false);
    c.set('big', buf(101));
    expect(c.stats()).toMatchObject({ entries: 0, bytes: 0 });
    const off = new ObjectCache(0, 1024);
    expect(off.accepts(1)).toBe(false);
    off.set('a', buf(1));
    expect(off.stats().bytes).toBe(0);
  });

  it('forgets a deleted object, its bytes and its first read', () => {
    const c = new ObjectCache(1000 + 4 * O, 100);
    c.set('a', buf(50));
    c.delete('a');
    expect(c.get('a')).toBeUndefined();
    expect(c.stats().bytes).toBe(0);
    expect(c.shouldAdmit('b')).toBe(false);
    c.delete('b');
    expect(c.shouldAdmit('b')).toBe(false);
  });
});
