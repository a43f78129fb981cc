/**
 * The /api/beta error format (docs/discussion-api.md §2): every error is a JSON array of
 * `{message, field?, exception?}` items. Domain errors are mapped here, once, by class and reason.
 */
import type { FastifyReply } from 'fastify';
import { AppError, retryAfterOf, UnauthenticatedError, ValidationError } from '../../core/errors';

export interface BetaErrorItem {
  exception?: string;
  message: string;
  field?: string;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function sendBetaError(
  reply: FastifyReply,
  status: number,
  items: BetaErrorItem[],
  headers: Record<string, string> = {},
): FastifyReply {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  return reply.status(status).type(JSON_CONTENT_TYPE).send(items);
}

/** Status, body and headers for a domain error. */
export function betaErrorFor(err: AppError): {
  status: number;
  items: BetaErrorItem[];
  headers: Record<string, string>;
} {
  if (err instanceof ValidationError) {
    const items = err.issues.map((i) => {
      const item: BetaErrorItem = { exception: i.exception ?? 'ValidationError', message: i.message };
      if (i.field !== undefined) item.field = i.field;
      return item;
    });
    return { status: 400, items, headers: {} };
  }
  if (err instanceof UnauthenticatedError) {
    if (err.reason === 'INVALID_TOKEN') {
      return {
        status: 401,
        items: [{ message: 'Invalid or expired token', exception: 'InvalidTokenError' }],
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      };
    }
    if (err.reason === 'AUTHENTICATION_REQUIRED') {
      return {
        status: 401,
        items: [{ message: 'Authentication required', exception: 'AuthenticationError' }],
        headers: { 'www-authenticate': 'Bearer' },
      };
    }
    return { status: 401, items: [{ message: err.message, exception: 'AuthenticationError' }], headers: {} };
  }
  const retryAfter = retryAfterOf(err);
  if (retryAfter !== undefined) {
    return { status: err.status, items: [{ message: err.message }], headers: { 'retry-after': String(retryAfter) } };
  }
  return { status: err.status, items: [{ message: err.message }], headers: {} };
}
