import path from 'node:path';
import { EnvReader } from './reader';

/** The file-sharing settings of docs/files-api.md §12. */
export interface FilesConfig {
  storage: 'disk' | 'gridfs';
  maxSize: number;
  /** Seconds; 0 = unlimited. */
  maxExpiry: number;
  forceRandomFilename: boolean;
  requireApiKey: boolean;
  /** Absolute path of a linx-format auth file, when set. */
  authFile?: string;
  acceptLinxHeaders: boolean;
  /** Seconds between sweeps of expired files; 0 disables the sweeper. */
  cleanupInterval: number;
  /** Access-key cookie lifetime in seconds; 0 = session cookie. */
  accessCookieExpiry: number;
  /**
   * Wrong access or delete keys allowed per client address, and per file, within the window
   * (src/files/key-checks.ts); 0 = no limit.
   */
  keyCheckLimit: number;
  keyCheckWindowSeconds: number;
  /**
   * Uploads allowed per client address within the window (every upload route of both doors); 0 = no limit (default).
   */
  uploadRateLimit: number;
  uploadRateWindowSeconds: number;
  /** Uploads this process receives at once; 0 = unlimited. */
  maxConcurrentUploads: number;
  /** Disk backend: bytes of small objects kept in memory (src/storage/object-cache.ts); 0 = none. */
  objectCacheBytes: number;
  /**
   * Disk backend: the largest object the object cache keeps; undefined = by how downloads are sent
   * (storage/index.ts: 64 KiB through sendfile, 1 MiB otherwise).
   */
  objectCacheMaxObject: number | undefined;
  /** Disk backend: downloads through sendfile(2) when its native module was built (src/storage/sendfile.ts). */
  sendfile: boolean;
}

export function readFilesConfig(r: EnvReader): FilesConfig {
  const authFile = r.raw('FILES_AUTH_FILE');
  return {
    storage: r.oneOf('FILES_STORAGE', 'disk', ['disk', 'gridfs'] as const),
    maxSize: r.int('FILES_MAX_SIZE', 4 * 1024 * 1024 * 1024, 1),
    maxExpiry: r.int('FILES_MAX_EXPIRY', 0, 0),
    forceRandomFilename: r.bool('FILES_FORCE_RANDOM_FILENAME', false),
    requireApiKey: r.bool('FILES_REQUIRE_API_KEY', false),
    authFile: authFile === undefined ? undefined : path.resolve(authFile),
    acceptLinxHeaders: r.bool('FILES_ACCEPT_LINX_HEADERS', true),
    cleanupInterval: r.int('FILES_CLEANUP_INTERVAL', 600, 0),
    accessCookieExpiry: r.int('FILES_ACCESS_COOKIE_EXPIRY', 0, 0),
    keyCheckLimit: r.int('FILES_KEY_CHECK_LIMIT', 30, 0, 1_000_000),
    keyCheckWindowSeconds: r.int('FILES_KEY_CHECK_WINDOW', 600, 1, 86_400 * 30),
    // Off by default (docs/files-api.md §3): linx-server has no limit and its batch clients upload
    // many files in a row; the concurrent-upload cap and FILES_MAX_SIZE still bound one process.
    uploadRateLimit: r.int('FILES_UPLOAD_RATE_LIMIT', 0, 0, 1_000_000),
    uploadRateWindowSeconds: r.int('FILES_UPLOAD_RATE_WINDOW', 15, 1, 86_400 * 30),
    maxConcurrentUploads: r.int('FILES_MAX_CONCURRENT_UPLOADS', 100, 0, 1_000_000),
    objectCacheBytes: r.int('FILES_OBJECT_CACHE_BYTES', 64 * 1024 * 1024, 0),
    objectCacheMaxObject: r.int('FILES_OBJECT_CACHE_MAX', undefined, 0),
    sendfile: r.bool('FILES_SENDFILE', true),
  };
}
