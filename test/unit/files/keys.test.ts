/** docs/files-api.md §4.7 salted scrypt keys, §10 API keys and the linx auth-file test vectors. */
import crypto from 'node:crypto';
import {
  apiKeyDigest,
  hashGeneratedSecret,
  hashSecret,
  linxAuthLine,
  matchesAuthFile,
  newApiKey,
  parseAuthFile,
  randomDeleteKey,
  verifySecret,
} from '../../../src/files/keys';

describe('§10 auth-file test vectors', () => {
  it.each([
    ['mysecretkey', '+WF9cp911lSS1SnCRFBwu7rWQ5qeK8t7oFgq9pNHER8='],
    ['haPVipRnGJ0QovA9nyqK', 'vhvZ/PT1jeTbTAJ8JdoxddqFtebSxdVb0vwPlYO+4HM='],
    ['', 'QwFSkSu2sTB6XhZeRh9giIEIQr+FtSdGK29hP7nOnog='],
  ])('%j → %s', async (key, line) => expect(await linxAuthLine(key)).toBe(line));

  const file =
    '# linx keys\n\n  +WF9cp911lSS1SnCRFBwu7rWQ5qeK8t7oFgq9pNHER8=  \nnot base64!\n' +
    'vhvZ/PT1jeTbTAJ8JdoxddqFtebSxdVb0vwPlYO+4HM=\r\nQwFSkSu2sTB6XhZeRh9giIEIQr+FtSdGK29hP7nOnog=\n';
  it('skips blank lines, comments and malformed lines', () => expect(parseAuthFile(file)).toHaveLength(3));
  it('accepts the keys of its lines', async () => {
    const hashes = parseAuthFile(file);
    expect(await matchesAuthFile('mysecretkey', hashes)).toBe(true);
    expect(await matchesAuthFile('haPVipRnGJ0QovA9nyqK', hashes)).toBe(true);
    expect(await matchesAuthFile('wrong', hashes)).toBe(false);
  });
  it('never accepts an empty key, even when its hash is listed', async () => {
    expect(await matchesAuthFile('', parseAuthFile(file))).toBe(false);
  });
});

describe('§4.7 delete and access keys', () => {
  it('are stored as salted scrypt hashes that verify only the right key', async () => {
    const a = await hashSecret('pw1');
    const b = await hashSecret('pw1');
    expect(a).not.toBe(b); // fresh salt each time
    expect(a).not.toContain('pw1');
    const [scheme, salt, hash] = a.split('$');
    expect(scheme).toBe('scrypt');
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(hash!, 'base64')).toHaveLength(32);
    expect(Buffer.from(hash!, 'base64')).toEqual(
      crypto.scryptSync('pw1', Buffer.from(salt!, 'base64'), 32, { N: 16384, r: 8, p: 1 }),
    );
    expect(await verifySecret('pw1', a)).toBe(true);
    expect(await verifySecret('pw2', a)).toBe(false);
    expect(await verifySecret('', a)).toBe(false);
    expect(await verifySecret('pw1', 'garbage')).toBe(false);
  });

  it('server-generated keys are stored as their SHA-256, naming the algorithm', async () => {
    const key = randomDeleteKey();
    const stored = hashGeneratedSecret(key);
    expect(stored).toBe(`sha256$${crypto.createHash('sha256').update(key).digest('base64')}`);
    expect(stored).not.toContain(key);
    expect(await verifySecret(key, stored)).toBe(true);
    expect(await verifySecret(key.slice(1), stored)).toBe(false);
    expect(await verifySecret('', stored)).toBe(false);
    // A truncated or otherwise malformed record never matches.
    expect(await verifySecret(key, stored.slice(0, -4))).toBe(false);
    expect(await verifySecret(key, `${stored}$x`)).toBe(false);
    expect(await verifySecret(key, `md5$${stored.slice(7)}`)).toBe(false);
  });

  it('records written before §4.7 named the algorithm (generated keys hashed with scrypt) still verify', async () => {
    // A record as every upload stored it before generated keys got SHA-256 (salt and hash fixed here).
    const salt = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const hash = crypto.scryptSync('Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1', salt, 32, { N: 16384, r: 8, p: 1 });
    const old = `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
    expect(await verifySecret('Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1', old)).toBe(true);
    expect(await verifySecret('Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC2', old)).toBe(false);
  });

  it('generated delete keys are 30 characters of [A-Za-z0-9]', () => {
    const keys = new Set(Array.from({ length: 200 }, randomDeleteKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9]{30}$/);
  });
});

describe('§10 API keys', () => {
  it('are 32 random bytes in base64url (43 characters), stored as SHA-256', () => {
    const k = newApiKey();
    expect(k).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(k, 'base64url')).toHaveLength(32);
    expect(apiKeyDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
