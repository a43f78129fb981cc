/**
 * Reading a request for the files domain, shared by its two front doors (the Files-* routes and
 * GraphQL uploads): header names and aliases (docs/files-api.md §2.1), credentials (§10), the
 * server's own paths (reserved names, §4.5) and the end of an exchange (an upload's admission).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { MAX_FILENAME_LENGTH } from '../files/filename';

type HeaderName = 'randomize' | 'delete-key' | 'expiry' | 'access-key' | 'api-key';

export function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A header value as text. Node reads header bytes as latin1; clients send UTF-8, so valid UTF-8 is
 * decoded as such (a key sent in a header then equals the same key sent in a query or body).
 */
export function headerText(v: string | undefined): string | undefined {
  // ASCII, control characters included, is the same in latin1 and UTF-8.
  // eslint-disable-next-line no-control-regex
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

/** Settles once the response is over: sent, failed, or cut by a client that went away. */
export function responseEnded(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}
