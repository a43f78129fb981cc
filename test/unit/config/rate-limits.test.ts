/** The rate-limit settings: defaults, 0 = off, and validation of every new variable. */
import { loadConfig } from '../../../src/config';
import { configProblems as problems } from '../../helpers/config';

describe('rate-limit settings', () => {
  it('default to 20 logins and 10 registrations per hour, no upload rate limit and 100 concurrent uploads', () => {
    const c = loadConfig({});
    expect(c.discussion).toMatchObject({
      registrationRateLimit: 10,
      registrationRateWindowSeconds: 3600,
      loginRateLimit: 20,
      loginRateWindowSeconds: 3600,
    });
    // docs/files-api.md §3: legacy batch clients are never throttled on the default configuration.
    expect(c.files).toMatchObject({ uploadRateLimit: 0, uploadRateWindowSeconds: 15, maxConcurrentUploads: 100 });
  });

  it('read their variables; 0 turns each limit off', () => {
    const c = loadConfig({
      REGISTRATION_RATE_LIMIT: '0',
      REGISTRATION_RATE_WINDOW: '60',
      FILES_UPLOAD_RATE_LIMIT: '0',
      FILES_UPLOAD_RATE_WINDOW: '2',
      FILES_MAX_CONCURRENT_UPLOADS: '0',
    });
    expect(c.discussion).toMatchObject({ registrationRateLimit: 0, registrationRateWindowSeconds: 60 });
    expect(c.files).toMatchObject({ uploadRateLimit: 0, uploadRateWindowSeconds: 2, maxConcurrentUploads: 0 });
    expect(
      loadConfig({ REGISTRATION_RATE_LIMIT: '3', FILES_UPLOAD_RATE_LIMIT: '7', FILES_MAX_CONCURRENT_UPLOADS: '2' }),
    ).toMatchObject({
      discussion: { registrationRateLimit: 3 },
      files: { uploadRateLimit: 7, maxConcurrentUploads: 2 },
    });
  });

  it.each([
    ['REGISTRATION_RATE_LIMIT', '-1'],
    ['REGISTRATION_RATE_LIMIT', 'ten'],
    ['REGISTRATION_RATE_LIMIT', '2000000'],
    ['REGISTRATION_RATE_WINDOW', '0'],
    ['REGISTRATION_RATE_WINDOW', '1.5'],
    ['FILES_UPLOAD_RATE_LIMIT', '-5'],
    ['FILES_UPLOAD_RATE_LIMIT', '5/s'],
    ['FILES_UPLOAD_RATE_WINDOW', '0'],
    ['FILES_UPLOAD_RATE_WINDOW', '99999999'],
    ['FILES_MAX_CONCURRENT_UPLOADS', '-1'],
    ['FILES_MAX_CONCURRENT_UPLOADS', 'many'],
  ])('rejects %s=%s', (name, value) => {
    const list = problems({ [name]: value });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('lists every invalid rate-limit variable at once', () => {
    const list = problems({
      REGISTRATION_RATE_LIMIT: 'x',
      REGISTRATION_RATE_WINDOW: '0',
      FILES_UPLOAD_RATE_LIMIT: '-1',
      FILES_UPLOAD_RATE_WINDOW: 'y',
      FILES_MAX_CONCURRENT_UPLOADS: '1e3',
    });
    expect(list.map((p) => p.split(':')[0]).sort()).toEqual([
      'FILES_MAX_CONCURRENT_UPLOADS',
      'FILES_UPLOAD_RATE_LIMIT',
      'FILES_UPLOAD_RATE_WINDOW',
      'REGISTRATION_RATE_LIMIT',
      'REGISTRATION_RATE_WINDOW',
    ]);
  });
});
