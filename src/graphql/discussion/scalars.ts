/**
 * Timestamps as the REST layer writes them (docs/discussion-api.md §1.3): ISO 8601 UTC with exactly three
 * fraction digits and `Z` — `Date.prototype.toISOString()`'s string, built by isoTime — so both front
 * doors show equal strings.
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { isoTime } from '../../core/iso-time';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function parse(value: unknown): Date {
  if (typeof value !== 'string' || !ISO.test(value)) {
    throw new GraphQLError('DateTime must be an ISO 8601 string such as 2026-03-01T12:00:00.000Z', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new GraphQLError(`Invalid DateTime: ${value}`, { extensions: { code: 'BAD_USER_INPUT' } });
  return d;
}

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description:
    'A point in time, written as ISO 8601 UTC with exactly three fraction digits and `Z` ' +
    '(`2026-03-01T12:00:00.000Z`), the same string as in the REST API.',
  serialize(value) {
    if (value instanceof Date) return isoTime(value);
    if (typeof value === 'string') return isoTime(new Date(value));
    if (typeof value === 'number') return isoTime(new Date(value));
    throw new GraphQLError('DateTime cannot represent a non-date value');
  },
  parseValue: parse,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING)
      throw new GraphQLError('DateTime must be a string', { nodes: [ast], extensions: { code: 'BAD_USER_INPUT' } });
    return parse(ast.value);
  },
});
