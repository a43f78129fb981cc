/**
 * Reading /api/beta requests (docs/discussion-api.md): query parameters (§1.1), the public base URL (§1.4),
 * links (§5.6).
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config';
import { NotFoundError } from '../../core/errors';
import { publicBaseUrl } from '../../public-url';

/**
 * Query parameters as §1.1 reads them: names case-sensitive, the first occurrence wins, an
 * empty value is present, values percent-decoded with `+` as a space.
 */
export function queryOf(req: FastifyRequest): URLSearchParams {
  const q = req.url.indexOf('?');
  return new URLSearchParams(q >= 0 ? req.url.slice(q + 1) : '');
}

/** The named parameters that were given, first occurrences only (undefined when absent). */
export function pick<K extends string>(params: URLSearchParams, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const n of names) {
    const v = params.get(n);
    if (v !== null) out[n] = v;
  }
  return out;
}

/** `{base}` of the links in answers (docs/discussion-api.md §1.4): the one rule of src/public-url.ts. */
export function baseUrl(req: FastifyRequest, config: Config): string {
  return publicBaseUrl(req, config.publicUrl);
}

/**
 * A pagination link: the endpoint URL, then the given parameters in the order of §5.6 with their
 * received values, then the cursor; form-encoded (space → `+`).
 */
export function pageLink(
  endpoint: string,
  given: [string, string | undefined][],
  cursor: ['after' | 'before', string],
): string {
  const params = new URLSearchParams();
  for (const [k, v] of given) if (v !== undefined) params.append(k, v);
  params.append(cursor[0], cursor[1]);
  return `${endpoint}?${params.toString()}`;
}

/** An empty path segment (`/topic/`, `/user//topics`) names no route: 404 before anything else. */
export function requireSegment(value: string): string {
  if (value === '') throw new NotFoundError('Not found', 'NO_ROUTE');
  return value;
}
