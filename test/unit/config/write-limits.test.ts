/** The per-account write limits' settings (issue 43): defaults, 0 = off, validation. */
import { loadConfig } from '../../../src/config';
import { configProblems as problems } from '../../helpers/config';

describe('write-limit settings', () => {
  it('default to 10 topics, 30 comments, 120 votes and 60 labels per account per 10 minutes', () => {
    expect(loadConfig({}).discussion.writeLimits).toEqual({
      topic: { limit: 10, windowSeconds: 600 },
      comment: { limit: 30, windowSeconds: 600 },
      vote: { limit: 120, windowSeconds: 600 },
      label: { limit: 60, windowSeconds: 600 },
    });
  });

  it('read their variables; 0 turns a limit off', () => {
    const c = loadConfig({
      TOPIC_RATE_LIMIT: '0',
      COMMENT_RATE_LIMIT: '5',
      COMMENT_RATE_WINDOW: '60',
      VOTE_RATE_WINDOW: '3600',
      LABEL_RATE_LIMIT: '1000',
    });
    expect(c.discussion.writeLimits).toEqual({
      topic: { limit: 0, windowSeconds: 600 },
      comment: { limit: 5, windowSeconds: 60 },
      vote: { limit: 120, windowSeconds: 3600 },
      label: { limit: 1000, windowSeconds: 600 },
    });
  });

  it.each([
    ['TOPIC_RATE_LIMIT', '-1'],
    ['COMMENT_RATE_LIMIT', 'many'],
    ['VOTE_RATE_LIMIT', '2000000'],
    ['LABEL_RATE_WINDOW', '0'],
    ['COMMENT_RATE_WINDOW', '1.5'],
  ])('rejects %s=%s', (name, value) => {
    const list = problems({ [name]: value });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(new RegExp(`^${name}: `));
  });
});
