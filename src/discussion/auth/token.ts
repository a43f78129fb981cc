/**
 * Bearer tokens (docs/discussion-api.md §3.3, §3.4): compact HS256 JWTs with the claims sub, username, iat,
 * exp and tv. The header's alg is checked before anything else; jsonwebtoken then verifies the
 * signature (constant-time) with algorithms pinned to HS256.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface TokenClaims {
  /** The user's id as a decimal string. */
  sub: string;
  username: string;
  iat: number;
  exp: number;
  /** The user's token version at issue time. */
  tv: number;
}

/**
 * The secret as a KeyObject, made once per secret. Given a string, jsonwebtoken first tries to read
 * it as a PEM public key, which throws, on every call: with the key object nothing is parsed.
 */
let key: { secret: string; object: KeyObject } | undefined;
function keyOf(secret: string): KeyObject {
  if (key?.secret !== secret) key = { secret, object: createSecretKey(Buffer.from(secret, 'utf8')) };
  return key.object;
}

export function signToken(claims: TokenClaims, secret: string): string {
  // Key order as in docs/discussion-api.md §8 example 1; jsonwebtoken keeps a given iat.
  const payload = { sub: claims.sub, username: claims.username, iat: claims.iat, exp: claims.exp, tv: claims.tv };
  return jwt.sign(payload, keyOf(secret), { algorithm: 'HS256' });
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

function decodeJsonSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Tokens whose signature was verified lately (at most VERIFIED_MAX, the oldest forgotten first), for
 * one secret: a client sends the same token with every request, and checking its HMAC and decoding it
 * each time showed in CPU profiles of bench/load.js. A token's expiry is checked on every use.
 */
const VERIFIED_MAX = 1024;
const verified = new Map<string, TokenClaims>();
let verifiedSecret: string | undefined;

/** The claims of a valid, unexpired token, or null. `nowSeconds` is the current Unix time. */
export function verifyToken(token: string, secret: string, nowSeconds: number): TokenClaims | null {
  if (verifiedSecret !== secret) {
    verified.clear();
    verifiedSecret = secret;
  }
  const known = verified.get(token);
  if (known) return known.exp <= nowSeconds ? null : { ...known };
  const claims = checkToken(token, secret, nowSeconds);
  if (claims) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(token, { ...claims });
  }
  return claims;
}

function checkToken(token: string, secret: string, nowSeconds: number): TokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return null;
  const header = decodeJsonSegment(parts[0]!);
  if (typeof header !== 'object' || header === null || (header as { alg?: unknown }).alg !== 'HS256') return null;
  let payload: unknown;
  try {
    payload = jwt.verify(token, keyOf(secret), { algorithms: ['HS256'], clockTimestamp: nowSeconds });
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const p = payload as Record<string, unknown>;
  if (!Number.isInteger(p.exp) || !Number.isInteger(p.iat) || !Number.isInteger(p.tv)) return null;
  if (typeof p.sub !== 'string' || !/^[1-9][0-9]{0,15}$/.test(p.sub)) return null;
  if ((p.exp as number) <= nowSeconds) return null;
  return {
    sub: p.sub,
    username: typeof p.username === 'string' ? p.username : '',
    iat: p.iat as number,
    exp: p.exp as number,
    tv: p.tv as number,
  };
}

/** The token of an Authorization header value, or null when it is not `Bearer <token>`. */
export function bearerToken(header: string): string | null {
  const m = /^\s*([A-Za-z]+) +([^\s]+)\s*$/.exec(header);
  if (!m || m[1]!.toLowerCase() !== 'bearer') return null;
  return m[2]!;
}
