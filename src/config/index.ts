/**
 * The only reader of process.env. `loadConfig` validates every variable at start and throws a
 * ConfigError listing every invalid one with its reason.
 */
import os from 'node:os';
import path from 'node:path';
import { ConfigError, Env, EnvReader } from './reader';
import { DiscussionConfig, readDiscussionConfig } from './discussion';
import { FilesConfig, readFilesConfig } from './files';
import { GraphQLConfig, readGraphQLConfig } from './graphql';
import { LiveConfig, readLiveConfig } from './live';

export { ConfigError } from './reader';
export type { Env } from './reader';
export type { DiscussionConfig } from './discussion';
export type { FilesConfig } from './files';
export type { GraphQLConfig } from './graphql';
export type { LiveConfig } from './live';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface DatabaseConfig {
  /** Set → used as is; unset → the embedded launcher picks a local server. */
  uri?: string;
  mongodBin?: string;
  ferretdbBin?: string;
  /** Where a built FerretDB is cached, outside any checkout so fresh clones reuse it. */
  cacheDir: string;
  /** The PATH searched for `mongod` and `go`. */
  searchPath: string;
}

export interface Config {
  env: 'production' | 'development' | 'test';
  host: string;
  port: number;
  /** Absolute base URL for links, no trailing slash; undefined → derived from each request. */
  publicUrl?: string;
  /** Whether X-Forwarded-* headers are honoured at all. */
  trustProxy: boolean;
  /**
   * Which proxies are trusted (Fastify's trustProxy): a number of hops (TRUST_PROXY=true is 1, the
   * one proxy in front), or a list of proxy addresses/CIDRs. Trusting every hop would let a client
   * put its own address in front of X-Forwarded-For and pick the address rate limits count.
   */
  proxyTrust: number | string;
  dataDir: string;
  /** Undefined on the embedded default: a secret is generated once and kept under dataDir. */
  jwtSecret?: string;
  logLevel: LogLevel;
  /** How long shutdown waits for in-flight requests before closing anyway. */
  shutdownTimeoutMs: number;
  /** Largest JSON/url-encoded request body accepted (file uploads have their own limit). */
  bodyLimit: number;
  /** A client must send its complete request headers within this time (slow-loris protection). */
  headersTimeoutMs: number;
  /** A client must send its complete request (body included) within this time; large uploads need it long. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this time. */
  keepAliveTimeoutMs: number;
  /** Seed the demo dataset into an empty embedded database at start. */
  demoSeed: boolean;
  database: DatabaseConfig;
  discussion: DiscussionConfig;
  files: FilesConfig;
  graphql: GraphQLConfig;
  live: LiveConfig;
  /** The scrypt pool (src/core/kdf.ts): worker threads, and jobs that may wait for one. */
  kdf: { threads: number; maxQueued: number };
}

export function loadConfig(env: Env = process.env): Config {
  const r = new EnvReader(env);
  const nodeEnv = r.oneOf('NODE_ENV', 'development', ['production', 'development', 'test'] as const);
  const host = r.string('HOST', '127.0.0.1');
  const port = r.int('PORT', 4000, 0, 65535);
  const publicUrl = r.baseUrl('PUBLIC_URL');
  const dataDir = path.resolve(r.string('DATA_DIR', './data'));

  const jwtSecret = r.raw('JWT_SECRET');
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret) < 32) {
    r.fail('JWT_SECRET', `must be at least 32 bytes long, got ${Buffer.byteLength(jwtSecret)}`);
  }
  if (jwtSecret === undefined && nodeEnv === 'production') {
    r.fail('JWT_SECRET', 'is required when NODE_ENV=production (at least 32 random bytes)');
  }

  const uri = r.raw('MONGODB_URI');
  if (uri !== undefined && !/^mongodb(\+srv)?:\/\/./.test(uri)) {
    r.fail('MONGODB_URI', 'must start with mongodb:// or mongodb+srv://');
  }

  const cacheRoot = r.raw('XDG_CACHE_HOME') ?? path.join(r.raw('HOME') ?? os.homedir(), '.cache');
  const config: Config = {
    env: nodeEnv,
    host,
    port,
    publicUrl,
    ...readTrustProxy(r),
    dataDir,
    jwtSecret,
    logLevel: r.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT', 10, 1, 3600) * 1000,
    bodyLimit: r.int('BODY_LIMIT', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    headersTimeoutMs: r.int('HEADERS_TIMEOUT', 30, 1, 3600) * 1000,
    requestTimeoutMs: r.int('REQUEST_TIMEOUT', 3600, 1, 86_400) * 1000,
    keepAliveTimeoutMs: r.int('KEEP_ALIVE_TIMEOUT', 72, 1, 3600) * 1000,
    // Never by default in production: the demo accounts' passwords are published in the README.
    demoSeed: r.bool('DEMO_SEED', uri === undefined && nodeEnv !== 'production'),
    database: {
      uri,
      mongodBin: r.raw('MONGOD_BIN'),
      ferretdbBin: r.raw('FERRETDB_BIN'),
      cacheDir: path.resolve(r.raw('AGORA_CACHE_DIR') ?? path.join(cacheRoot, 'agora')),
      searchPath: r.raw('PATH') ?? '',
    },
    discussion: readDiscussionConfig(r),
    files: readFilesConfig(r),
    graphql: readGraphQLConfig(r),
    live: readLiveConfig(r),
    kdf: {
      threads: r.int('KDF_THREADS', 2, 1, 64),
      maxQueued: r.int('KDF_QUEUE', 128, 0, 100_000),
    },
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** TRUST_PROXY: false (default), true (= 1 hop), a number of hops, or proxy addresses/CIDRs (comma-separated). */
function readTrustProxy(r: EnvReader): { trustProxy: boolean; proxyTrust: number | string } {
  const v = r.raw('TRUST_PROXY')?.trim();
  if (v === undefined) return { trustProxy: false, proxyTrust: 0 };
  const k = v.toLowerCase();
  if (['false', '0', 'no'].includes(k)) return { trustProxy: false, proxyTrust: 0 };
  if (['true', 'yes'].includes(k)) return { trustProxy: true, proxyTrust: 1 };
  if (/^[0-9]+$/.test(k) && Number(k) <= 100) return { trustProxy: true, proxyTrust: Number(k) };
  const list = k.split(',').map((a) => a.trim());
  if (list.every((a) => /^[0-9a-f:.]+(\/[0-9]{1,3})?$/.test(a) && /[.:]/.test(a)))
    return { trustProxy: true, proxyTrust: list.join(',') };
  r.fail(
    'TRUST_PROXY',
    `must be true/false, a number of proxy hops, or proxy addresses/CIDRs separated by commas, got ` +
      `${JSON.stringify(v)}`,
  );
  return { trustProxy: false, proxyTrust: 0 };
}
