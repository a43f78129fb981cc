/**
 * Answers given before any front door's routing ran — a request Node could not parse (431 for a
 * URL or headers over 16 KiB, 400 for a malformed request line or Content-Length with
 * Transfer-Encoding, 408), or one Fastify refused before its route (an undecodable URL, a method
 * such as QUERY without a body type) — in the format of the front door that owns the path:
 * the error array under /api/beta (docs/discussion-api.md §2.5), `{"errors":[…]}` on /graphql,
 * docs/files-api.md §3's JSON or text on the Files-* paths, `{"error":…}` elsewhere.
 */
import { prefersJson } from './files/accept';

export type FrontDoor = 'beta' | 'graphql' | 'files' | 'other';

/** docs/files-api.md §2.4: headers on every non-file response of the Files-* paths. */
export const FILES_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'referrer-policy': 'same-origin',
  'x-frame-options': 'SAMEORIGIN',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'self';",
});

/** Whether a path is one of the server's own routes (`/healthz`, …), matched before `/{filename}`. */
export type ServerPathCheck = (path: string) => boolean;

/** The front door that owns a request path (without its query). */
export function frontDoorOf(path: string, isServerPath: ServerPathCheck = () => false): FrontDoor {
  if (path === '/api/beta' || path.startsWith('/api/beta/')) return 'beta';
  if (path === '/graphql') return 'graphql';
  // /upload and /selif/… are the files API's whatever follows; /{name} unless a route of the server's.
  if (/^\/(upload|selif)(\/.*)?$/.test(path)) return 'files';
  if (/^\/[^/]*$/.test(path) && !isServerPath(path)) return 'files';
  return 'other';
}

/** The path of a request target: origin form (`/a?b`) or absolute form (`http://h/a?b`). */
export function pathOfTarget(target: string): string {
  const path = target.split('?')[0]!;
  if (path.startsWith('/')) return path;
  try {
    return new URL(target).pathname;
  } catch {
    return path;
  }
}

const MESSAGES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  413: 'Request body is too large',
  431: 'Request header fields too large',
};

const GRAPHQL_CODES: Record<number, string> = {
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
};

export interface Refusal {
  headers: Record<string, string>;
  body: string;
}

/** Body and headers of a refusal with `status` on `path`; `accept` chooses the files format. */
export function refusalFor(
  path: string,
  status: number,
  accept: string | undefined,
  isServerPath?: ServerPathCheck,
): Refusal {
  const message = MESSAGES[status] ?? 'Bad request';
  const json = 'application/json; charset=utf-8';
  switch (frontDoorOf(path, isServerPath)) {
    case 'beta':
      return { headers: { 'content-type': json }, body: JSON.stringify([{ message }]) };
    case 'graphql':
      return {
        headers: { 'content-type': json },
        body: JSON.stringify({ errors: [{ message, extensions: { code: GRAPHQL_CODES[status] ?? 'BAD_REQUEST' } }] }),
      };
    case 'files':
      if (prefersJson(accept))
        return { headers: { ...FILES_PAGE_HEADERS, 'content-type': json }, body: JSON.stringify({ error: message }) };
      return { headers: { ...FILES_PAGE_HEADERS, 'content-type': 'text/plain; charset=utf-8' }, body: `${message}\n` };
    default:
      return { headers: { 'content-type': json }, body: JSON.stringify({ error: message }) };
  }
}

/** What a refusal written straight to a socket needs of its request. */
export interface RefusedRequest {
  method: string;
  target: string;
  accept: string | undefined;
}

/**
 * The request Node's clientError refuses: the one whose body was being read when the error came
 * (the received bytes are then body bytes, not a request line), else the one the received bytes
 * begin, as far as Node got: its method, target and, if it got that far, Accept.
 */
export function refusedRequest(
  received: Buffer | undefined,
  inFlight: { method?: string; url?: string; headers: { accept?: string } } | undefined,
): RefusedRequest {
  if (inFlight?.url !== undefined) {
    return { method: inFlight.method ?? 'GET', target: inFlight.url, accept: inFlight.headers.accept };
  }
  const head = Buffer.isBuffer(received) ? received.subarray(0, 64 * 1024).toString('latin1') : '';
  const line = /^(\S*)[ \t]+(\S+)/.exec(head);
  return {
    method: line?.[1] ?? '',
    target: line?.[2] ?? '/',
    accept: /\r\naccept:[ \t]*([^\r\n]*)/i.exec(head)?.[1],
  };
}

/** The bytes of a refusal written straight to a socket (Node's clientError: no reply object). */
export function rawRefusal(
  status: number,
  reason: string,
  request: RefusedRequest,
  isServerPath?: ServerPathCheck,
): string {
  const refusal = refusalFor(pathOfTarget(request.target), status, request.accept, isServerPath);
  const body = request.method === 'HEAD' ? '' : refusal.body;
  const lines = [`HTTP/1.1 ${status} ${reason}`, 'Connection: close', 'X-Content-Type-Options: nosniff'];
  for (const [name, value] of Object.entries(refusal.headers)) lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
