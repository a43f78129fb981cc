/** The comment cache settings (src/discussion/comment-cache.ts): defaults, 0 = off, validation. */
import { loadConfig } from '../../../src/config';
import { configProblems as problems } from '../../helpers/config';

it('defaults to 50,000 comments for at most 60 s; COMMENT_CACHE_SIZE=0 turns it off', () => {
  expect(loadConfig({}).discussion.commentCache).toEqual({ capacity: 50_000, maxAgeSeconds: 60 });
  expect(loadConfig({ COMMENT_CACHE_SIZE: '0', COMMENT_CACHE_SECONDS: '5' }).discussion.commentCache).toEqual({
    capacity: 0,
    maxAgeSeconds: 5,
  });
});

it.each([
  ['COMMENT_CACHE_SIZE', '-1'],
  ['COMMENT_CACHE_SIZE', 'lots'],
  ['COMMENT_CACHE_SECONDS', '0'],
  ['COMMENT_CACHE_SECONDS', '1.5'],
])('%s=%s is refused with the variable named', (name, value) => {
  expect(problems({ [name]: value }).join('\n')).toContain(name);
});
