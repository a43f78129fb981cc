/**
 * Secrets of the files domain: delete and access keys (docs/files-api.md §4.7: SHA-256 for keys the server drew,
 * salted scrypt for keys a client chose), API keys (SHA-256, §10) and the linx-format auth-file
 * hash (§10). Comparisons are constant-time.
 */
import crypto from 'node:crypto';
import { scrypt as pooledScrypt } from '../core/kdf';
import { randomString } from './filename';

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** On the process's KDF pool (src/core/kdf.ts), never on libuv's pool, which file I/O needs. */
function scrypt(secret: string | Buffer, salt: string | Buffer): Promise<Buffer> {
  return pooledScrypt(secret, salt, KEY_LENGTH, SCRYPT);
}

/**
 * `scrypt$<salt base64>$<hash base64>` of a key a client chose (delete or access key), with a
 * fresh random salt: such a key may be weak, so its hash must be slow to search.
 */
export async function hashSecret(secret: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_LENGTH);
  const hash = await scrypt(secret, salt);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * `sha256$<hash base64>` of a key the server generated (randomDeleteKey): ~178 random bits leave
 * nothing to search, so the CPU a scrypt costs (tens of milliseconds by design) would only cap
 * small-upload throughput.
 */
export function hashGeneratedSecret(secret: string): string {
  return `sha256$${sha256(secret).toString('base64')}`;
}

function sha256(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Whether `secret` is the one `stored` was made from. The record names its algorithm (`scrypt$…`
 * from hashSecret, also every record written before generated keys got SHA-256; `sha256$…` from
 * hashGeneratedSecret); false for malformed records and unknown algorithms.
 */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const scheme = parts[0];
  if (scheme === 'sha256' && parts.length === 2) return matches(sha256(secret), parts[1]!);
  if (scheme === 'scrypt' && parts.length === 3 && parts[1]) {
    const expected = Buffer.from(parts[2]!, 'base64');
    if (expected.length !== KEY_LENGTH) return false;
    return matches(await scrypt(secret, Buffer.from(parts[1], 'base64')), parts[2]!);
  }
  return false;
}

/** Constant-time comparison of a computed 32-byte hash with a stored base64 one. */
function matches(actual: Buffer, expectedB64: string): boolean {
  const expected = Buffer.from(expectedB64, 'base64');
  return expected.length === actual.length && crypto.timingSafeEqual(actual, expected);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A generated delete key: 30 characters of [A-Za-z0-9], uniformly from a CSPRNG. */
export function randomDeleteKey(): string {
  return randomString(30, ALNUM);
}

/** A new API key: 32 random bytes, base64url (43 characters). */
export function newApiKey(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The stored form of an API key: lowercase hex SHA-256. */
export function apiKeyDigest(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

/** One line of a linx-server auth file: base64(scrypt(key, "linx-server", N=16384, r=8, p=1, 32)). */
export async function linxAuthLine(key: string): Promise<string> {
  return (await scrypt(key, 'linx-server')).toString('base64');
}

/**
 * The keys of a linx-format auth file: one hash per line, trimmed; blank lines and `#` comments
 * skipped; lines that are not a 32-byte base64 hash can never match and are dropped.
 */
export function parseAuthFile(text: string): Buffer[] {
  const hashes: Buffer[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(line)) continue;
    const bytes = Buffer.from(line, 'base64');
    if (bytes.length === KEY_LENGTH) hashes.push(bytes);
  }
  return hashes;
}

/** Hashes `key` once and compares it in constant time with every auth-file hash. Empty keys never match. */
export async function matchesAuthFile(key: string, hashes: Buffer[]): Promise<boolean> {
  if (key === '' || hashes.length === 0) return false;
  const presented = await scrypt(key, 'linx-server');
  let found = false;
  for (const h of hashes) found = crypto.timingSafeEqual(presented, h) || found;
  return found;
}
