/** Settings of the limits of issue 43: per-account writes, wrong keys, the scrypt pool (defaults, 0 = off). */
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

describe('wrong-key limit and scrypt pool settings', () => {
  it('default to 30 wrong keys per address and per file per 10 minutes, 2 scrypt threads, 128 queued', () => {
    const c = loadConfig({});
    expect(c.files).toMatchObject({ keyCheckLimit: 30, keyCheckWindowSeconds: 600 });
    expect(c.kdf).toEqual({ threads: 2, maxQueued: 128 });
    expect(
      loadConfig({ FILES_KEY_CHECK_LIMIT: '0', FILES_KEY_CHECK_WINDOW: '60', KDF_THREADS: '1', KDF_QUEUE: '0' }),
    ).toMatchObject({ files: { keyCheckLimit: 0, keyCheckWindowSeconds: 60 }, kdf: { threads: 1, maxQueued: 0 } });
  });

  it.each([
    ['FILES_KEY_CHECK_LIMIT', '-1'],
    ['FILES_KEY_CHECK_WINDOW', '0'],
    ['KDF_THREADS', '0'],
    ['KDF_THREADS', '65'],
    ['KDF_QUEUE', 'lots'],
  ])('rejects %s=%s', (name, value) => {
    const list = problems({ [name]: value });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(new RegExp(`^${name}: `));
  });
});
