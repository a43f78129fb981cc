/**
 * API keys (docs/files-api.md §10): issued keys live hashed (SHA-256) in the database; the keys
 * of an optional linx-format auth file are valid too.
 */
import { ApiKeyRepository } from './apikey.repository';
import { apiKeyDigest, matchesAuthFile, newApiKey } from './keys';

export interface ApiKeyInfo {
  id: string;
  name: string;
  createdAt: Date;
}

export class ApiKeyService {
  constructor(
    private readonly repo: ApiKeyRepository,
    /** Decoded hashes of the auth file (empty without one). */
    private readonly authFileHashes: Buffer[],
  ) {}

  /** Issues a key. The plaintext is returned only here; only its SHA-256 is stored. */
  async create(name: string): Promise<ApiKeyInfo & { key: string }> {
    const key = newApiKey();
    const rec = await this.repo.insert(name, apiKeyDigest(key), new Date());
    return { id: rec._id.toHexString(), name: rec.name, createdAt: rec.createdAt, key };
  }

  /** Every issued key, oldest first, without key material. */
  async list(): Promise<ApiKeyInfo[]> {
    return (await this.repo.list()).map((r) => ({ id: r._id.toHexString(), name: r.name, createdAt: r.createdAt }));
  }

  /** Revokes a key by id; false when there is none. Effective on the next request. */
  revoke(id: string): Promise<boolean> {
    return this.repo.remove(id);
  }

  /** Whether `key` is an issued key or one of the auth file. Empty and missing keys never are. */
  async isValid(key: string | undefined): Promise<boolean> {
    if (!key) return false;
    if (await this.repo.existsWithDigest(apiKeyDigest(key))) return true;
    return matchesAuthFile(key, this.authFileHashes);
  }
}
