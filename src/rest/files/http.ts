/** Request reading of the Files-* routes (docs/files-api.md): header aliases, base URL, cookies, origin check. */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config';
import { MAX_FILENAME_LENGTH } from '../../files/filename';
import { publicBaseUrl } from '../../public-url';

type HeaderName = 'randomize' | 'delete-key' | 'expiry' | 'access-key' | 'api-key';

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A header value as text. Node reads header bytes as latin1; clients send UTF-8, so valid UTF-8 is
 * decoded as such (a key sent in a header then equals the same key sent in a query or body).
 */
export function headerText(v: string | undefined): string | undefined {
  if (v === undefined || /^[\x00-\x7f]*$/.test(v)) return v;
  const bytes = Buffer.from(v, 'latin1');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : v;
}

/**
 * `Files-<name>`, else `Linx-<name>` while aliases are accepted (§2.1). When both are present the
 * Files-* one wins even if empty. Undefined when absent.
 */
export function filesHeader(headers: IncomingHttpHeaders, name: HeaderName, acceptLinx: boolean): string | undefined {
  const own = single(headers[`files-${name}`]);
  if (own !== undefined || !acceptLinx) return headerText(own);
  return headerText(single(headers[`linx-${name}`]));
}

/** Empty strings mean "not given". */
export function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** `yes`, `true`, `y`, `1`, case-insensitively (§2.1). */
export function isTruthy(v: string | undefined): boolean {
  if (v === undefined) return false;
  const t = v.trim().toLowerCase();
  return t === 'yes' || t === 'true' || t === 'y' || t === '1';
}

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

/** The password of `Authorization: Basic`, undefined when absent or malformed. */
export function basicPassword(authorization: string | undefined): string | undefined {
  const m = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** The server's own routes whose path is `/<name>` (outside this API), for reserved names (§4.5). */
export function isServerPath(request: FastifyRequest, name: string): boolean {
  // No route of the server is that long, and the router gives up on a parameter over its
  // maxParamLength: it then reports `/:filename` matched without params, which read as "a server
  // path" and made a random name be redrawn forever.
  if (name.length > MAX_FILENAME_LENGTH) return false;
  const route = request.server.findRoute({ method: 'GET', url: `/${name}` });
  // Our own `/:filename` matches every name; any other match is a route of the server.
  return route !== null && route.params.filename === undefined;
}
