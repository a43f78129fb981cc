/**
 * Maps the domain's error vocabulary to GraphQL errors once: `extensions.code` and
 * `extensions.http.status`; unexpected errors are masked and logged.
 */
import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
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
