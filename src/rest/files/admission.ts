/**
 * Admission of an upload at a front door (files/upload-gate.ts): asked for before the body is
 * read, released when the response is over — sent, failed or cut by a client that went away —
 * so every exit path gives the slot back.
 */
import type { ServerResponse } from 'node:http';
import type { UploadService } from '../../files/upload.service';

/**
 * Admits one upload from `clientAddress` (throws TooManyRequestsError when refused) and releases
 * its slot once `res` finished or closed. Listens before asking, so a client that leaves while the
 * counters are read still frees its slot.
 */
export async function admitUpload(uploads: UploadService, clientAddress: string, res: ServerResponse): Promise<void> {
  let over = false;
  let release: (() => void) | undefined;
  const end = () => {
    over = true;
    release?.();
  };
  res.once('finish', end);
  res.once('close', end);
  const slot = await uploads.admit(clientAddress);
  release = () => slot.release();
  if (over) slot.release();
}
