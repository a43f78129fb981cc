/**
 * The error format of docs/files-api.md §3: `{"error":"<message>"}` when JSON is preferred,
 * otherwise `<message>\n` as text. Domain errors are mapped here once, by class and reason.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ClientClosedRequestError, classifyError, TooManyRequestsError } from '../../core/errors';
import { prefersJson } from './accept';
import { awaitsContinue } from './expect-continue';
import { lingerAfterAnswer } from '../../core/lingering-close';
import { drainBody, unreadBody } from './unread-body';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** The messages of §3 by the domain's reasons. */
const BY_REASON: Record<string, string> = {
  EMPTY_FILE: 'Empty file',
  PROHIBITED_FILENAME: 'Prohibited filename',
  FILENAME_TOO_LONG: 'Filename too long',
  BAD_REQUEST: 'Bad request',
  API_KEY_REQUIRED: 'Unauthorized',
  INVALID_DELETE_KEY: 'Invalid delete key',
  INVALID_ACCESS_KEY: 'Invalid access key',
  FILE_NOT_FOUND: 'File not found',
  ROUTE_NOT_FOUND: 'Not found',
  FILE_TOO_LARGE: 'File too large',
  UPLOAD_RATE_LIMITED: 'Too many uploads, try again later',
  UPLOADS_BUSY: 'Too many uploads in progress, try again shortly',
  ADDRESS_UPLOADS_BUSY: 'Too many uploads in progress from this address, try again shortly',
  NO_SPACE: 'Insufficient storage',
};

/** The messages of §3 by status, for errors without a known reason. */
const BY_STATUS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'Not found',
  408: 'Request timeout',
  412: 'Precondition failed',
  413: 'File too large',
  416: 'Range not satisfiable',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
  507: 'Insufficient storage',
};

export function messageFor(err: AppError): string {
  return (err.reason && BY_REASON[err.reason]) || BY_STATUS[err.status] || err.message;
}

/**
 * Sends an error in the format the request prefers. HEAD responses carry no body (Node drops it).
 * A refusal before the body was read drains a small body first (unread-body.ts), so the client
 * reads the answer instead of a broken pipe. Every other refusal while body is still coming (a
 * large or chunked body refused before reading it, or one that failed while it arrived) answers
 * with `Connection: close` and then lingers (lingering-close.ts): the server stops writing but
 * reads and drops what the client still sends, so the client's writes do not fail with a reset
 * before it read the answer (Go clients report `write: broken pipe` otherwise). Not for 413: a body
 * over the size limit is not read a byte further, as documented.
 */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
): FastifyReply | Promise<FastifyReply> {
  const body = unreadBody(request, awaitsContinue(request));
  if (body === 'drain') {
    return drainBody(request.raw).then((ended) => {
      // Cut short (over the limit): what is left cannot be skipped on a kept-alive connection.
      if (!ended) closeAfterAnswer(request, reply, status);
      return writeError(request, reply, status, message);
    });
  }
  if (body === 'close') closeAfterAnswer(request, reply, status);
  return writeError(request, reply, status, message);
}

/** An unread request body cannot be skipped on a kept-alive connection: close, lingering (above). */
function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply, status: number): void {
  reply.header('connection', 'close');
  if (status !== 413 && !request.raw.complete) lingerAfterAnswer(request.raw);
}

function writeError(request: FastifyRequest, reply: FastifyReply, status: number, message: string): FastifyReply {
  reply.code(status);
  if (prefersJson(request.headers.accept)) return reply.type(JSON_TYPE).send(JSON.stringify({ error: message }));
  return reply.type(TEXT_TYPE).send(`${message}\n`);
}

/** The plugin's error handler: every failure of this API answers in the §3 format. */
export function handleFilesError(
  err: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | Promise<FastifyReply> | void {
  if (reply.raw.headersSent) {
    // Failed mid-body (a storage error while streaming): the client sees a truncated response.
    reply.raw.destroy();
    return;
  }
  const known = classifyError(err);
  if (known instanceof ClientClosedRequestError) {
    request.raw.destroy();
    return reply.code(499).send();
  }
  if (known instanceof TooManyRequestsError) reply.header('retry-after', String(known.retryAfter));
  if (known) return sendError(request, reply, known.status, messageFor(known));
  const status = (err as FastifyError).statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return sendError(
      request,
      reply,
      status === 415 ? 400 : status,
      BY_STATUS[status === 415 ? 400 : status] ?? 'Bad request',
    );
  }
  request.log.error({ err }, 'unexpected error in the files API');
  return sendError(request, reply, 500, 'Internal server error');
}
