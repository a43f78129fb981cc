/**
 * Maps the domain's error vocabulary to GraphQL errors, the one place that does for this door:
 * `extensions.code` (and details such as `field`, `issues`, `retryAfter`) in Apollo's formatError,
 * in the context function (asGraphQLError) and for requests refused before Apollo (refusalOf);
 * unexpected errors are masked and logged. Error bodies never
 * carry `extensions.http`: the response's own status is the only status (httpStatusPlugin).
 */
import type { GraphQLFormattedError } from 'graphql';
import { GraphQLError } from 'graphql';
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { AppError, classifyError, retryAfterOf, TooManyRequestsError, ValidationError } from '../core/errors';

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

/** The extensions a client sees for a domain error. */
export function errorExtensions(err: AppError): Record<string, unknown> {
  const ext: Record<string, unknown> = { code: err.code };
  if (err.reason) ext.reason = err.reason;
  if (err instanceof ValidationError) {
    ext.issues = err.issues.map((i) => ({ field: i.field ?? null, message: i.message }));
    const fields = err.issues.map((i) => i.field).filter(Boolean);
    if (fields.length > 0) ext.field = fields[0];
  }
  if (err instanceof TooManyRequestsError) ext.retryAfter = err.retryAfter;
  return ext;
}

/**
 * The extensions of a GraphQLError thrown for a domain error: the client's, plus `http` for Apollo,
 * which takes the status from it when the whole request fails (and removes it from the body).
 */
export function domainExtensions(err: AppError): Record<string, unknown> {
  // Apollo adds these headers to the response when this error decides its status.
  const headers = new HeaderMap();
  if (err.code === 'UNAUTHENTICATED') headers.set('www-authenticate', 'Bearer');
  const retryAfter = retryAfterOf(err);
  if (retryAfter !== undefined) headers.set('retry-after', String(retryAfter));
  return { ...errorExtensions(err), http: { status: err.status, headers } };
}

/**
 * A domain error thrown where Apollo's formatError does not see it with its class (the context
 * function): a GraphQLError carrying the extensions; anything else unchanged.
 */
export function asGraphQLError(err: unknown): unknown {
  const known = classifyError(err);
  return known ? new GraphQLError(known.message, { extensions: domainExtensions(known) }) : err;
}

/**
 * The answer of /graphql to a request refused before Apollo saw it (unparsable JSON, a body too
 * large, an unsupported content type), in GraphQL's error format.
 */
export function refusalOf(err: unknown, log: Logger): { status: number; body: { errors: GraphQLFormattedError[] } } {
  const known = classifyError(err);
  const statusCode = (err as { statusCode?: number }).statusCode;
  const clientError = statusCode !== undefined && statusCode >= 400 && statusCode < 500;
  const status = known ? known.status : clientError ? statusCode : 500;
  if (!known && status === 500) log.error({ err }, 'unexpected error in /graphql');
  const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST';
  const extensions = known ? errorExtensions(known) : { code };
  const message = known ? known.message : status === 500 ? 'Internal server error' : (err as Error).message;
  return { status, body: { errors: [{ message, extensions }] } };
}

export function makeFormatError(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const known = classifyError(original);
    if (known) {
      return {
        message: known.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: errorExtensions(known),
      };
    }
    const code = formatted.extensions?.code;
    // Apollo's own refusals of a request that carry a 4xx but no code (a persisted query whose hash
    // does not match its text): the client's mistake, said as Apollo says it.
    if (original instanceof GraphQLError && !original.extensions?.code && isClientStatus(original.extensions?.http)) {
      return withoutHttp({ ...formatted, extensions: { ...formatted.extensions, code: 'BAD_REQUEST' } });
    }
    if (
      (typeof code === 'string' && PASS_THROUGH.has(code)) ||
      (original instanceof GraphQLError &&
        original.extensions?.code &&
        original.extensions.code !== 'INTERNAL_SERVER_ERROR')
    ) {
      return withoutHttp(formatted);
    }
    log.error({ err: original }, 'unexpected error in a GraphQL operation');
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
  };
}

function isClientStatus(http: unknown): boolean {
  const status = (http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function withoutHttp(formatted: GraphQLFormattedError): GraphQLFormattedError {
  if (!formatted.extensions || !('http' in formatted.extensions)) return formatted;
  const { http: _http, ...extensions } = formatted.extensions;
  return { ...formatted, extensions };
}

/**
 * The response status, per GraphQL over HTTP: 200 whenever `data` is present and not null (partial
 * data with field errors, under application/json and application/graphql-response+json alike), so
 * clients keep the data, for queries and mutations alike. Every mutation field is nullable, so a
 * refused field is null with its error while the fields applied before it keep their results (and
 * the answer is 200). A mutation of which every field was refused (each null with an error at that
 * very field, e.g. the one `uploadFile` of an operation) changed nothing and is answered as refused:
 * `data` null. When the operation produced no data, an error that concerns the whole request sets
 * the status: SERVICE_UNAVAILABLE (the database is away) → 503 (with `Retry-After`),
 * INSUFFICIENT_STORAGE (an upload could not be stored) → 507, UNAUTHENTICATED → 401 (with
 * `WWW-Authenticate: Bearer`), FORBIDDEN → 403, TOO_MANY_REQUESTS → 429 (with `Retry-After`); other
 * errors leave Apollo's status. Requests refused
 * before execution (parse, validation, variables, a bad token) keep Apollo's 4xx.
 *
 * A batch shares one response head between its operations, which finish in any order: the status is
 * 200 when any operation produced data, else the highest-ranked refusal among them.
 */
export function httpStatusPlugin<C extends object>(): ApolloServerPlugin<C> {
  // The database being away decides first: nothing else can be answered meaningfully then.
  const RANK: Record<string, number> = {
    SERVICE_UNAVAILABLE: 5,
    INSUFFICIENT_STORAGE: 4,
    UNAUTHENTICATED: 3,
    FORBIDDEN: 2,
    TOO_MANY_REQUESTS: 1,
  };
  const rank = (e: AppError | undefined) => (e ? (RANK[e.code] ?? 0) : 0);
  /** What the operations of one response head (one request, or one batch) have produced so far. */
  const heads = new WeakMap<object, { data: boolean; chosen?: AppError }>();
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response, errors, operation }) {
          const http = response.http;
          let head = heads.get(http);
          if (!head) heads.set(http, (head = { data: false }));
          const result = response.body.kind === 'single' ? response.body.singleResult : undefined;
          if (result && operation?.operation === 'mutation' && nothingChanged(result.data, result.errors)) {
            result.data = null;
          }
          if (result?.data != null) head.data = true;
          for (const e of errors ?? []) {
            const known = classifyError(unwrapResolverError(e));
            if (known && rank(known) > rank(head.chosen)) head.chosen = known;
          }
          if (head.data) {
            http.status = 200;
            http.headers.delete('www-authenticate');
            http.headers.delete('retry-after');
            return;
          }
          // Otherwise Apollo's status stands (an upload refused for its size: 413).
          const chosen = head.chosen;
          if (!chosen || !result || !('data' in result)) return;
          http.status = chosen.status;
          if (chosen.code === 'UNAUTHENTICATED') http.headers.set('www-authenticate', 'Bearer');
          const retryAfter = retryAfterOf(chosen);
          if (retryAfter !== undefined) http.headers.set('retry-after', String(retryAfter));
        },
      };
    },
  };
}

/**
 * Whether no field of a mutation changed anything: each is null with an error at that very field
 * (its resolver refused). A field that is null because something below it failed after it resolved
 * (an error deeper in its selection) did change something, and keeps `data`. (A nullable mutation
 * such as `uploadFile` then answers like a refused operation, while two aliases of which one failed
 * keep the other's result and a 200. Queries keep GraphQL's `data` as executed.)
 */
function nothingChanged(
  data: Record<string, unknown> | null | undefined,
  errors: readonly { path?: readonly (string | number)[] }[] | undefined,
): boolean {
  if (data == null || !errors?.length) return false;
  const keys = Object.keys(data);
  return (
    keys.length > 0 &&
    keys.every((k) => data[k] === null && errors.some((e) => e.path?.length === 1 && e.path[0] === k))
  );
}
