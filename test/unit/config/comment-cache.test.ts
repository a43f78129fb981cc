/** The comment cache settings (src/discussion/comment-cache.ts): defaults, 0 = off, validation. */
import { loadConfig } from '../../../src/config';
import { configProblems as problems } from '../../helpers/config';

it('defaults to 50,000 comments and 128 MiB for at most 60 s; COMMENT_CACHE_SIZE=0 turns it off', () => {
  expect(loadConfig({}).discussion.commentCache).toEqual({
    capacity: 50_000,
    maxAgeSeconds: 60,
    bytes: 128 * 1024 * 1024,
  });
  expect(
    loadConfig({ COMMENT_CACHE_SIZE: '0', COMMENT_CACHE_SECONDS: '5', COMMENT_CACHE_BYTES: '1000' }).discussion
      .commentCache,
  ).toEqual({ capacity: 0, maxAgeSeconds: 5, bytes: 1000 });
});

it.each([
  ['COMMENT_CACHE_SIZE', '-1'],
  ['COMMENT_CACHE_SIZE', 'lots'],
  ['COMMENT_CACHE_SECONDS', '0'],
  ['COMMENT_CACHE_SECONDS', '1.5'],
  ['COMMENT_CACHE_BYTES', '-1'],
  ['COMMENT_CACHE_BYTES', 'big'],
])('%s=%s is refused with the variable named', (name, value) => {
  expect(problems({ [name]: value }).join('\n')).toContain(name);
});
