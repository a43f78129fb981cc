/**
 * Maps the domain's error vocabulary to GraphQL errors once: `extensions.code` and
 * `extensions.http.status`; unexpected errors are masked and logged.
 */
import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ArgumentValidationError } from 'type-graphql';
import { AppError, classifyError, TooManyRequestsError, ValidationError } from '../core/errors';

type Logger = { error(obj: unknown, msg?: string): void };

/** Codes Apollo and graphql-js produce themselves before any resolver runs; passed through. */
const PASS_THROUGH = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
]);

export function domainExtensions(err: AppError): Record<string, unknown> {
  const ext: Record<string, unknown> = { code: err.code, http: { status: err.status } };
  if (err.reason) ext.reason = err.reason;
  if (err instanceof ValidationError) {
    ext.issues = err.issues.map((i) => ({ field: i.field ?? null, message: i.message }));
    const fields = err.issues.map((i) => i.field).filter(Boolean);
    if (fields.length > 0) ext.field = fields[0];
  }
  if (err instanceof TooManyRequestsError) ext.retryAfter = err.retryAfter;
  return ext;
}

export function makeFormatError(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof ArgumentValidationError) {
      const issues = original.extensions.validationErrors as { property: string; constraints?: Record<string, string> }[] | undefined;
      return {
        message: formatted.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: {
          code: 'BAD_USER_INPUT',
          http: { status: 400 },
          field: issues?.[0]?.property,
          issues: (issues ?? []).map((i) => ({ field: i.property, message: Object.values(i.constraints ?? {}).join('; ') })),
        },
      };
    }
    const known = classifyError(original);
    if (known) {
      return { message: known.message, locations: formatted.locations, path: formatted.path, extensions: domainExtensions(known) };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && PASS_THROUGH.has(code)) return formatted;
    if (original instanceof GraphQLError && original.extensions?.code && original.extensions.code !== 'INTERNAL_SERVER_ERROR') {
      return formatted;
    }
    log.error({ err: original }, 'unexpected error in a GraphQL operation');
    return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}

/**
 * Errors that concern the whole request also set the HTTP status of the response:
 * SERVICE_UNAVAILABLE (the database is away) → 503, INSUFFICIENT_STORAGE → 507 when no field
 * succeeded, UNAUTHENTICATED → 401 (with
 * `WWW-Authenticate: Bearer`), FORBIDDEN → 403, TOO_MANY_REQUESTS → 429 (with `Retry-After`).
 * Other errors of the execution (NOT_FOUND, CONFLICT, BAD_USER_INPUT from a resolver) keep 200 so clients still get the partial data; their `extensions.http.status` says
 * what REST would answer.
 */
export function httpStatusPlugin<C extends object>(): ApolloServerPlugin<C> {
  // The database being away decides first: nothing else can be answered meaningfully then.
  const RANK: Record<string, number> = { SERVICE_UNAVAILABLE: 4, UNAUTHENTICATED: 3, FORBIDDEN: 2, TOO_MANY_REQUESTS: 1 };
  return {
    async requestDidStart() {
      let noSpace = false;
      return {
        async didEncounterErrors({ errors, response }) {
          if (response.http.status) return;
          let chosen: AppError | undefined;
          for (const e of errors) {
            const known = classifyError(unwrapResolverError(e));
            if (known?.code === 'INSUFFICIENT_STORAGE') noSpace = true;
            if (known && (RANK[known.code] ?? 0) > (chosen ? RANK[chosen.code]! : 0)) chosen = known;
          }
          if (!chosen) return;
          response.http.status = chosen.status;
          if (chosen.code === 'UNAUTHENTICATED') response.http.headers.set('www-authenticate', 'Bearer');
          if (chosen instanceof TooManyRequestsError) response.http.headers.set('retry-after', String(chosen.retryAfter));
        },
        // An upload that could not be stored is the whole answer's status (507) only when nothing
        // else in the operation succeeded: otherwise 200 keeps the partial data.
        async willSendResponse({ response }) {
          if (!noSpace || response.http.status || response.body.kind !== 'single') return;
          const data = response.body.singleResult.data;
          if (!data || Object.values(data).every((v) => v === null)) response.http.status = 507;
        },
      };
    },
  };
}
