/**
 * The disk store's object cache on /metrics: its hits and misses (so its hit rate on real traffic
 * can be judged against the memory it holds) and its size. Read from the store when scraped.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { DiskStore } from '../storage';

export function objectCacheMetrics(registry: Registry, store: DiskStore): void {
  new Counter({
    name: 'files_object_cache_lookups_total',
    help: 'Reads of objects the object cache could hold (FILES_OBJECT_CACHE_MAX), by result: hit or miss.',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const s = store.cacheStats();
      this.reset();
      this.inc({ result: 'hit' }, s.hits);
      this.inc({ result: 'miss' }, s.misses);
    },
  });
  new Counter({
    name: 'files_object_cache_admitted_total',
    help: 'Objects copied into the object cache (on their second read).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(store.cacheStats().admitted);
    },
  });
  new Gauge({
    name: 'files_object_cache_bytes',
    help: 'Bytes the object cache holds (at most FILES_OBJECT_CACHE_BYTES).',
    registers: [registry],
    collect() {
      this.set(store.cacheStats().bytes);
    },
  });
}
