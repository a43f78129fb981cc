/** POST /login and GET /whoami (docs/discussion-api.md §3). */
import type { FastifyInstance } from 'fastify';
import { UnauthenticatedError, ValidationError } from '../../core/errors';
import type { Issue } from '../../core/errors';
import { reprJsonMember } from './python-repr';
import type { RestOptions } from '../options';

/** Largest login body read; beyond it the request fails cleanly (413) without being parsed. */
export const LOGIN_BODY_LIMIT = 64 * 1024;

/** 2.4: the body must be a JSON object whose username and password are strings. */
export function parseLoginBody(raw: unknown): { username: string; password: string } {
  let body: unknown;
  try {
    body = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ exception: 'ValidationError', message: 'Request body is not valid JSON' }]);
  }
  const record = body as Record<string, unknown>;
  const issues: Issue[] = [];
  for (const field of ['username', 'password']) {
    if (!Object.prototype.hasOwnProperty.call(record, field)) {
      issues.push({ exception: 'ValidationError', message: `'${field}' is a required property`, field });
    } else if (typeof record[field] !== 'string') {
      issues.push({
        exception: 'ValidationError',
        // Written from the text, not the parsed value: Python keeps 1.0 a float and big integers exact.
        message: `${reprJsonMember(raw as string, field)} is not of type 'string'`,
        field,
      });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { username: record.username as string, password: record.password as string };
}

export async function authRoutes(app: FastifyInstance, { services }: RestOptions): Promise<void> {
  const auth = services.discussion.auth;

  app.post('/login', {
    bodyLimit: LOGIN_BODY_LIMIT,
    // The body is read whatever its Content-Type (2.4): every type goes to the raw parser.
    onRequest: async (req) => {
      if (req.headers['content-type'] !== undefined) req.headers['content-type'] = 'application/octet-stream';
    },
    handler: async (req) => {
      await auth.actorFor(req.headers.authorization);
      const { username, password } = parseLoginBody(req.body);
      const { token } = await auth.login({ username, password, clientAddress: req.ip });
      return { token };
    },
  });

  app.get('/whoami', async (req) => {
    const actor = await auth.actorFor(req.headers.authorization);
    if (actor.kind !== 'user') throw new UnauthenticatedError('Authentication required', 'AUTHENTICATION_REQUIRED');
    return { msg: actor.username };
  });
}
