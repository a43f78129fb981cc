/** Request reading of the Files-* routes (docs/files-api.md): header aliases, base URL, cookies, origin check. */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config';
import { publicBaseUrl } from '../../public-url';
import { filesHeader, nonEmpty, single } from '../../core/files-headers';

// Shared with the GraphQL door (src/core/files-headers.ts).
export { basicPassword, filesHeader, headerText, isServerPath, isTruthy, nonEmpty } from '../../core/files-headers';

/** The base of file URLs (§2.3): the one rule of src/public-url.ts. */
export function baseUrl(request: FastifyRequest, config: Pick<Config, 'publicUrl'>): string {
  return publicBaseUrl(request, config.publicUrl);
}

/** The cookies of a request, values percent-decoded; the first occurrence of a name wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === '' || out.has(name)) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // Not percent-encoded: keep it as sent.
    }
    out.set(name, value);
  }
  return out;
}

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * §4.2 step 1: a POST is accepted when Origin names this site; without Origin, when it carries one
 * of the custom headers a cross-site form cannot send, or a Referer from this site.
 */
export function passesOriginCheck(headers: IncomingHttpHeaders, base: string, acceptLinx: boolean): boolean {
  const expected = originOf(base);
  const origin = single(headers.origin);
  if (origin !== undefined) return expected !== undefined && originOf(origin) === expected;
  for (const name of ['delete-key', 'expiry', 'randomize'] as const) {
    if (nonEmpty(filesHeader(headers, name, acceptLinx))) return true;
  }
  if (nonEmpty(single(headers['x-requested-with']))) return true;
  const referer = single(headers.referer);
  return referer !== undefined && expected !== undefined && originOf(referer) === expected;
}
