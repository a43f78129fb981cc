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
  /** Of those, the uploads one client address (an IPv6 /64) may hold at once; 0 = no share. */
  maxUploadsPerAddress: number;
  /**
   * Milliseconds a new file's metadata insert may wait for the inserts of other uploads in flight,
   * so they share one journal sync (src/files/insert-batcher.ts); 0 = none.
   */
  commitDelayMs: number;
  /** Seconds without a byte of an upload's body before it is ended with 408; 0 = never. */
  uploadStallSeconds: number;
  /** Bytes per second an upload's body must average over each span of `uploadMinRateSeconds`; 0 = any. */
  uploadMinRate: number;
  uploadMinRateSeconds: number;
  /** Disk backend: estimated bytes of file metadata kept in memory (src/files/metadata-cache.ts); 0 = none. */
  metadataCacheBytes: number;
  /** Seconds an unfinished resumable upload (§4.9) is kept after its creation. */
  resumableExpiry: number;
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
  const maxConcurrentUploads = r.int('FILES_MAX_CONCURRENT_UPLOADS', 100, 0, 1_000_000);
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
    maxConcurrentUploads,
    // A quarter of the slots by default (25 of 100): one address cannot take them all, and a legacy
    // batch client's 20 uploads at a time (docs/files-api.md §3) still fit.
    maxUploadsPerAddress: r.int('FILES_MAX_UPLOADS_PER_ADDRESS', Math.ceil(maxConcurrentUploads / 4), 0, 1_000_000),
    commitDelayMs: r.int('FILES_COMMIT_DELAY_MS', 2, 0, 1000),
    uploadStallSeconds: r.int('FILES_UPLOAD_STALL_TIMEOUT', 30, 0, 86_400),
    uploadMinRate: r.int('FILES_UPLOAD_MIN_RATE', 1024, 0),
    uploadMinRateSeconds: r.int('FILES_UPLOAD_MIN_RATE_PERIOD', 20, 1, 86_400),
    metadataCacheBytes: r.int('FILES_METADATA_CACHE_BYTES', 16 * 1024 * 1024, 0),
    resumableExpiry: r.int('FILES_RESUMABLE_EXPIRY', 86_400, 1, 86_400 * 365),
    objectCacheBytes: r.int('FILES_OBJECT_CACHE_BYTES', 64 * 1024 * 1024, 0),
    objectCacheMaxObject: r.int('FILES_OBJECT_CACHE_MAX', undefined, 0),
    sendfile: r.bool('FILES_SENDFILE', true),
  };
}
