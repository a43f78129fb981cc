/** The object cache settings of the disk store: defaults, 0 = no cache, validation. */
import { loadConfig } from '../../../src/config';
import { defaultCacheMaxObject } from '../../../src/storage';
import { configProblems as problems } from '../../helpers/config';

describe('object cache settings', () => {
  it('default to 64 MiB; the largest file by how downloads are sent (64 KiB through sendfile, 1 MiB without)', () => {
    const files = loadConfig({}).files;
    expect(files.objectCacheBytes).toBe(64 * 1024 * 1024);
    expect(files.objectCacheMaxObject).toBeUndefined();
    expect(files.metadataCacheBytes).toBe(16 * 1024 * 1024);
    expect(defaultCacheMaxObject(true)).toBe(64 * 1024);
    expect(defaultCacheMaxObject(false)).toBe(1024 * 1024);
  });

  it('read FILES_OBJECT_CACHE_BYTES and FILES_OBJECT_CACHE_MAX; 0 bytes turns the cache off', () => {
    const files = loadConfig({ FILES_OBJECT_CACHE_BYTES: '0', FILES_OBJECT_CACHE_MAX: '65536' }).files;
    expect(files).toMatchObject({ objectCacheBytes: 0, objectCacheMaxObject: 65536 });
  });

  it.each([
    ['FILES_OBJECT_CACHE_BYTES', '-1'],
    ['FILES_OBJECT_CACHE_BYTES', '64MiB'],
    ['FILES_OBJECT_CACHE_MAX', '-1'],
    ['FILES_OBJECT_CACHE_MAX', 'big'],
    ['FILES_METADATA_CACHE_BYTES', '-1'],
  ])('rejects %s=%s', (name, value) => {
    const list = problems({ [name]: value });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatch(new RegExp(`^${name}: `));
  });
});
