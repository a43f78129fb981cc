/**
 * JSON bodies of the Files-* API (docs/files-api.md §4.8, §7): fixed key order, every value a string, no
 * trailing newline.
 */
import type { StoredFile, UploadResult } from '../../files';

export function presentUpload(base: string, r: UploadResult): string {
  return JSON.stringify({
    access_key: r.accessKey,
    delete_key: r.deleteKey,
    direct_url: `${base}/selif/${r.filename}`,
    expiry: String(r.expiry),
    filename: r.filename,
    mimetype: r.mimetype,
    sha256sum: r.sha256,
    size: String(r.size),
    url: `${base}/${r.filename}`,
  });
}

export function presentInfo(base: string, f: StoredFile): string {
  return JSON.stringify({
    direct_url: `${base}/selif/${f.filename}`,
    expiry: String(f.expiry),
    filename: f.filename,
    mimetype: f.mimetype,
    sha256sum: f.sha256,
    size: String(f.size),
  });
}
