/**
 * The files domain's rules for writes, the same for both front doors (Files-* REST and GraphQL):
 * who may upload or delete (docs/files-api.md §10), and one upload from admission to commit in the
 * order of §4.3. A door only reads its request (headers, form, multipart part) into the values here.
 */
import { PayloadTooLargeError, UnauthenticatedError } from '../core/errors';
import type { ApiKeyService } from './apikey.service';
import type { ReceivedUpload, UploadOptions, UploadResult, UploadService } from './upload.service';
import type { FilesSettings } from './index';

/**
 * What a client shows to write: the API key it sent (a Files-Api-Key / Linx-Api-Key header, or the
 * Basic-auth password), and whether it is a logged-in discussion user (a valid bearer token).
 */
export interface WriteCredentials {
  apiKey?: string;
  /** Whether a logged-in user asks; a function when finding out costs a lookup (asked only if needed). */
  loggedIn: boolean | (() => Promise<boolean>);
}

export interface UploadRequest {
  credentials: WriteCredentials;
  /** The address the rate limit counts (the client, or what a trusted proxy says it is). */
  clientAddress: string;
  /** The body's declared size (Content-Length), when known: over FILES_MAX_SIZE → 413 before admission. */
  declaredSize?: number;
  /** The door's own refusals that come before admission (a POST's origin check, a body without fields). */
  beforeAdmission?: () => void;
  /** Settles when the exchange is over (answered, failed or abandoned): the admission slot is held until then. */
  until: Promise<unknown>;
  /** Reads the body into a received upload and the options the request gives. */
  read: () => Promise<{ received: ReceivedUpload; options: UploadOptions }>;
}

export class FileWritesService {
  constructor(
    private readonly settings: FilesSettings,
    private readonly apiKeys: ApiKeyService,
    private readonly uploads: UploadService,
  ) {}

  /**
   * With FILES_REQUIRE_API_KEY, uploads and deletes need a valid API key or a logged-in user: one
   * rule whichever door the request came through. Throws UnauthenticatedError (401) otherwise.
   */
  async authorize(credentials: WriteCredentials): Promise<void> {
    if (!this.settings.requireApiKey) return;
    if (await this.apiKeys.isValid(credentials.apiKey)) return;
    const { loggedIn } = credentials;
    if (typeof loggedIn === 'function' ? await loggedIn() : loggedIn) return;
    throw new UnauthenticatedError(
      'Unauthorized: this server requires an API key (Files-Api-Key header, or the Basic-auth password) or a ' +
        'logged-in user to upload or delete files',
      'API_KEY_REQUIRED',
    );
  }

  /**
   * One upload in the order of §4.3: write access, the declared size, the door's early refusals,
   * admission (rate limit and concurrency slot, before a byte of the body is read), then the body
   * and the commit. The slot is released when `until` settles, whatever happened.
   */
  async upload(request: UploadRequest): Promise<UploadResult> {
    await this.authorize(request.credentials);
    if (request.declaredSize !== undefined && request.declaredSize > this.settings.maxSize) {
      throw new PayloadTooLargeError('File too large', 'FILE_TOO_LARGE');
    }
    request.beforeAdmission?.();
    const slot = await this.uploads.admit(request.clientAddress);
    // Also when the exchange ended while admission was being decided: the slot is freed at once.
    void request.until.then(
      () => slot.release(),
      () => slot.release(),
    );
    const { received, options } = await request.read();
    return this.uploads.commit(received, options);
  }
}
