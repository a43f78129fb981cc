/**
 * The discussion's input rules as class-validator decorators. Each rule is one function naming the
 * problem of a value (null when it is fine), so the message says exactly what is wrong; absent
 * values (undefined) are each rule's call. The messages are the domain's wording
 * (docs/discussion-api.md §2.3 where REST shares it); wording only REST uses lives in rest/beta.
 */
import { registerDecorator } from 'class-validator';
import { isId36, parseMixedCursor } from '../rules/id36';
import { normalizeGroupPath } from '../rules/group-path';
import { parsePeriod } from '../rules/period';
import { normalizeTags, parseTagFilter } from '../rules/tags';
import { normalizeLink } from '../rules/text';
import { passwordProblem, usernameProblem } from '../user.rules';
import type { IssueContext } from './validate';

/** A problem of `value` (its whole object at hand for rules across properties), or null. */
export type Problem = (value: unknown, object: Record<string, unknown>) => string | null;

/**
 * A property decorator from a problem function. Only the first failing rule of a property is
 * reported; TypeScript applies a property's decorators bottom-up, so the lowest runs first.
 */
export function Rule(name: string, problem: Problem, context?: IssueContext): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      ...(context ? { options: { context } } : {}),
      validator: {
        validate: (value, args) => problem(value, args!.object as Record<string, unknown>) === null,
        defaultMessage: (args) => problem(args!.value, args!.object as Record<string, unknown>) ?? '',
      },
    });
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
export const PATTERN_MESSAGE = 'String does not match expected pattern.';

/** The size of a page: an integer (a bigint when it was given as text too long for a double) within 1..max. */
export function pageSizeProblem(value: unknown, max = MAX_PAGE_SIZE): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && !Number.isInteger(value)) return `${value} is not an integer`;
  if (typeof value !== 'number' && typeof value !== 'bigint') return 'Must be an integer';
  // `${-0}` is '0', as the spec's examples show it.
  if (value < 1) return `${value} is less than the minimum of 1`;
  if (value > max) return `${value} is greater than the maximum of ${max}`;
  return null;
}

export const PageSize = (max = MAX_PAGE_SIZE, context?: IssueContext) =>
  Rule('pageSize', (v) => pageSizeProblem(v, max), context);

/** A bare id36 (a topic or comment id, a cursor). */
export const Id36 = (context?: IssueContext) =>
  Rule('id36', (v) => (v === undefined || (typeof v === 'string' && isId36(v)) ? null : PATTERN_MESSAGE), context);

/** A cursor of a user's mixed history: `t-<id36>` or `c-<id36>`. */
export const MixedCursor = () =>
  Rule('mixedCursor', (v) =>
    v === undefined || (typeof v === 'string' && parseMixedCursor(v)) ? null : PATTERN_MESSAGE,
  );

/** `all`, `<n>h` or `<n>d` (5.2). */
export const Period = () =>
  Rule('period', (v) => (v === undefined || (typeof v === 'string' && parsePeriod(v)) ? null : 'Invalid time period'));

/** A tag filter: a label path, spaces allowed (5.3). */
export const TagFilter = () =>
  Rule('tagFilter', (v) => {
    if (v === undefined) return null;
    const r = typeof v === 'string' ? parseTagFilter(v) : ({ ok: false, error: 'chars' } as const);
    if (r.ok) return null;
    return r.error === 'chars' ? 'Only letters, numbers, and spaces allowed.' : 'Invalid path';
  });

/** A group path (`~Games.Tabletop` is `games.tabletop`); `message` says what the path is for. */
export const GroupPath = (message: string, { optional = false } = {}) =>
  Rule('groupPath', (v) => {
    if (optional && v === undefined) return null;
    return typeof v === 'string' && normalizeGroupPath(v) !== null ? null : message;
  });

/** One of `values` (case-sensitive); absent is fine unless `required`. */
export const OneOf = (
  values: readonly string[],
  message: (value: unknown) => string,
  { required = false, context }: { required?: boolean; context?: IssueContext } = {},
) =>
  Rule(
    'oneOf',
    (v) => ((!required && v === undefined) || (typeof v === 'string' && values.includes(v)) ? null : message(v)),
    context,
  );

/**
 * Two properties that exclude each other, given or not whatever their values. Put on a property of
 * its own declared where the check belongs in the order of issues; the issue names `field`.
 */
export const NotBoth = (a: string, b: string, message: string, field: string) =>
  Rule('notBoth', (_v, o) => (o[a] !== undefined && o[b] !== undefined ? message : null), { field });

export const MAX_TITLE = 200;
export const MAX_MARKDOWN = 50_000;

/**
 * Characters that show nothing by themselves: white space, controls, format characters (zero-width
 * space and joiners, bidirectional marks, soft hyphen, BOM), variation selectors and the combining
 * grapheme joiner, and the fillers and blanks that are letters or symbols to Unicode but render as
 * empty space (Hangul fillers, the Braille blank).
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Z}\u115F\u1160\u3164\uFFA0\u2800]|\u034F|\p{Variation_Selector}/gu;

/** Whether `text` has a character a reader can see: a title or comment of only invisible ones is empty. */
export function hasVisibleText(text: string): boolean {
  return text.replace(INVISIBLE, '') !== '';
}

/** A title: some visible text, at most 200 characters once trimmed; `optional`: absent is fine (an edit). */
export const Title = ({ optional = false } = {}) =>
  Rule('title', (v) => {
    if (optional && v === undefined) return null;
    const t = typeof v === 'string' ? v.trim() : '';
    if (!hasVisibleText(t)) return 'A title is required';
    return t.length > MAX_TITLE ? `Title must be at most ${MAX_TITLE} characters long` : null;
  });

/** Optional Markdown text (null or absent: none). */
export const OptionalMarkdown = () =>
  Rule('markdown', (v) => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') return 'Must be a string';
    return v.length > MAX_MARKDOWN ? `Text must be at most ${MAX_MARKDOWN} characters long` : null;
  });

/** A comment's text: something visible (not only spaces or invisible characters). */
export const CommentText = () =>
  Rule('commentText', (v) => {
    if (typeof v !== 'string' || !hasVisibleText(v)) return 'A comment needs some text';
    return v.length > MAX_MARKDOWN ? `Text must be at most ${MAX_MARKDOWN} characters long` : null;
  });

/** An http(s) URL, or nothing (null, absent or ''). */
export const Link = () =>
  Rule('link', (v) => {
    if (v === undefined || v === null || v === '') return null;
    return normalizeLink(v) !== null ? null : 'The link must be an http or https URL';
  });

/** A list of tags (4.1); null or absent: none. */
export const Tags = () =>
  Rule('tags', (v) => {
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) return 'Tags must be a list of strings';
    const r = normalizeTags(v as string[]);
    if (r.invalid.length > 0) {
      return `Invalid tags: ${r.invalid.join(', ')} (letters, numbers and spaces, levels separated by dots)`;
    }
    return r.tooMany ? 'At most 20 tags' : null;
  });

/** Text of at most `max` characters once trimmed; null or absent: none. */
export const TrimmedMax = (max: number, what: string) =>
  Rule('trimmedMax', (v) => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') return 'Must be a string';
    return v.trim().length > max ? `${what} must be at most ${max} characters long` : null;
  });

export const Username = () => Rule('username', usernameProblem);
export const NewPassword = () => Rule('password', passwordProblem);
