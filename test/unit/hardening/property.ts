/**
 * Shared settings of the property-based tests: a fixed seed (override with FC_SEED to explore),
 * so a failure reproduces; fast-check prints the seed and the shrunk counterexample.
 */
import fc from 'fast-check';

export const SEED = Number(process.env.FC_SEED ?? 20261122);

fc.configureGlobal({ seed: SEED, numRuns: Number(process.env.FC_RUNS ?? 500) });

export { fc };

/** Any string: every code point, lone surrogates included. */
export const anyString = (maxLength = 64) => fc.string({ unit: 'binary', maxLength });

/** Strings that look hostile: traversal, script, SQL/NoSQL, control characters, long runs. */
export const HOSTILE = [
  '',
  ' ',
  '..',
  '../',
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f',
  '/etc/passwd',
  '\u0000',
  '\r\n',
  '\r\nSet-Cookie: x=1',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' OR '1'='1",
  '1; DROP TABLE users --',
  '{"$ne": null}',
  '{"$gt": ""}',
  '$where',
  '[$ne]',
  '__proto__',
  'constructor',
  'prototype',
  '\u202e',
  '\ufeff',
  '\ud800',
  'ＡＢＣ',
  'İ',
  'ß',
  '🙂',
  'a'.repeat(300),
  '9'.repeat(40),
  '-1',
  '0',
  'NaN',
  'Infinity',
  '1e400',
  '0x10',
  'null',
  'undefined',
  'true',
];

/** A hostile string: from the list, or random, or a mix of both. */
export const hostileString = (maxLength = 64) =>
  fc.oneof(
    fc.constantFrom(...HOSTILE),
    anyString(maxLength),
    fc.tuple(fc.constantFrom(...HOSTILE), anyString(8), fc.constantFrom(...HOSTILE)).map(([a, b, c]) => a + b + c),
  );
