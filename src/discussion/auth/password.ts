/**
 * Password hashing: scrypt with a random per-user salt, verified in constant time. scrypt runs on
 * the process's KDF pool (src/core/kdf.ts), never on libuv's pool or the event loop.
 */
import crypto from 'node:crypto';
import { scrypt as pooledScrypt } from '../../core/kdf';

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return pooledScrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 128 * n * r * 2 });
}

/** `scrypt$N$r$p$salt$hash` with base64 salt and hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await scrypt(password, salt, n, r, p);
  return key.length === expected.length && crypto.timingSafeEqual(key, expected);
}

/** A hash of a random password, verified against for unknown users so timing does not reveal them. */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  return dummy;
}
