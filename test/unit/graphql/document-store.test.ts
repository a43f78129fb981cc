/** Apollo's parsed-document store (src/graphql/apollo.ts): bounded by the bytes documents keep, not by their count. */
import { parse } from 'graphql';
import { documentStore } from '../../../src/graphql/apollo';

it('keeps documents up to its byte budget, the least recently used going first', async () => {
  const store = documentStore(512 * 1024);
  // ~1.9 KB documents, each estimated at ~190 KB: two fit in 512 KiB, a third evicts the oldest.
  const text = (i: number) => `query Q${i} { ${Array.from({ length: 120 }, (_, j) => `a${j}: __typename`).join(' ')} }`;
  for (let i = 0; i < 5; i++) await store.set(`k${i}`, parse(text(i)));
  expect(await store.get('k0')).toBeUndefined();
  expect(await store.get('k4')).toBeDefined();
  let kept = 0;
  for (let i = 0; i < 5; i++) if (await store.get(`k${i}`)) kept++;
  expect(kept).toBe(2);
});

it('thousands of small distinct documents do not crowd out a budget meant for bytes', async () => {
  const store = documentStore(256 * 1024);
  for (let i = 0; i < 5000; i++) await store.set(`k${i}`, parse(`{ a${i}: __typename }`));
  let kept = 0;
  for (let i = 0; i < 5000; i++) if (await store.get(`k${i}`)) kept++;
  // ~20 characters each, ~2 KB estimated: about a hundred fit, never all five thousand.
  expect(kept).toBeGreaterThan(50);
  expect(kept).toBeLessThan(500);
});
