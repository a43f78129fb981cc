import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { configProblems as problems } from '../../helpers/config';

describe('loadConfig', () => {
  it('has working defaults with an empty environment', () => {
    const c = loadConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(4000);
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(c.publicUrl).toBeUndefined();
    expect(c.jwtSecret).toBeUndefined();
    expect(c.logLevel).toBe('info');
    expect(c.database.uri).toBeUndefined();
    expect(c.demoSeed).toBe(true);
    expect(c.files).toMatchObject({
      storage: 'disk',
      maxSize: 4294967296,
      maxExpiry: 0,
      cleanupInterval: 600,
      acceptLinxHeaders: true,
    });
  });

  it('lists every invalid variable at once, each with its reason', () => {
    const list = problems({
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      PUBLIC_URL: 'example.org',
      JWT_SECRET: 'short',
      FILES_STORAGE: 's3',
      TRUST_PROXY: 'maybe',
    });
    expect(list).toHaveLength(6);
    expect(list.join('\n')).toMatch(/^PORT: must be a whole number/m);
    expect(list.join('\n')).toMatch(/^LOG_LEVEL: must be one of fatal, error/m);
    expect(list.join('\n')).toMatch(/^PUBLIC_URL: must be an absolute URL/m);
    expect(list.join('\n')).toMatch(/^JWT_SECRET: must be at least 32 bytes/m);
    expect(list.join('\n')).toMatch(/^FILES_STORAGE: must be one of disk, gridfs/m);
    expect(list.join('\n')).toMatch(/^TRUST_PROXY: must be true\/false, a number of proxy hops/m);
  });

  it.each([
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '4000.5'],
    ['MONGODB_URI', 'postgres://x'],
    ['PUBLIC_URL', 'ftp://example.org'],
    ['PUBLIC_URL', 'https://example.org/sub'],
    ['PUBLIC_URL', 'https://example.org/?a=1'],
    ['NODE_ENV', 'staging'],
    ['FILES_MAX_SIZE', '0'],
    ['FILES_CLEANUP_INTERVAL', '-5'],
    ['SHUTDOWN_TIMEOUT', '0'],
    ['GRAPHQL_INTROSPECTION', 'perhaps'],
  ])('rejects %s=%s', (name, value) => {
    const list = problems({ [name]: value });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('requires JWT_SECRET in production', () => {
    expect(problems({ NODE_ENV: 'production' })).toEqual([
      expect.stringMatching(/^JWT_SECRET: is required when NODE_ENV=production/),
    ]);
    expect(problems({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) })).toEqual([]);
  });

  it('normalizes PUBLIC_URL to scheme://host[:port] without a trailing slash', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Example.org/' }).publicUrl).toBe('https://example.org');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:8080' }).publicUrl).toBe('http://localhost:8080');
  });

  it('reads booleans as true/false/1/0/yes/no in any case', () => {
    expect(loadConfig({ TRUST_PROXY: 'YES' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ FILES_REQUIRE_API_KEY: 'True' }).files.requireApiKey).toBe(true);
  });

  it('TRUST_PROXY: true is one hop; a number of hops; proxy addresses/CIDRs; anything else is refused', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' })).toMatchObject({ trustProxy: true, proxyTrust: 1 });
    expect(loadConfig({ TRUST_PROXY: '2' })).toMatchObject({ trustProxy: true, proxyTrust: 2 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' })).toMatchObject({
      trustProxy: true,
      proxyTrust: '10.0.0.0/8,127.0.0.1,::1',
    });
    expect(problems({ TRUST_PROXY: 'everyone' })).toEqual([
      expect.stringMatching(/^TRUST_PROXY: must be true\/false, a number of proxy hops, or proxy addresses/),
    ]);
  });

  it('does not seed demo data in production (its passwords are public) unless asked', () => {
    const secret = { JWT_SECRET: 'x'.repeat(32) };
    expect(loadConfig({ NODE_ENV: 'production', ...secret }).demoSeed).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', DEMO_SEED: 'true', ...secret }).demoSeed).toBe(true);
    expect(loadConfig({}).demoSeed).toBe(true);
  });

  it('does not seed demo data when MONGODB_URI is set', () => {
    expect(loadConfig({ MONGODB_URI: 'mongodb://db:27017' }).demoSeed).toBe(false);
  });
});
