/**
 * The /api/beta query parameters (docs/discussion-api.md §2.3) as input classes, validated by the domain's
 * one helper and turned into the services' inputs. The rules are the domain's; what only REST says
 * lives here: `limit` arrives as text (not an integer: ParameterValidationError), an unknown
 * `order` is quoted Python-style, the topic id is `topic_id36`. Spec order of the issues: the
 * class's order of properties (no inheritance: class-validator lists a parent's rules after the child's).
 */
import { Id36, MixedCursor, NotBoth, OneOf, Period, Rule, TagFilter } from '../../discussion/inputs/rules';
import { pageSizeProblem } from '../../discussion/inputs/rules';
import { BOTH_CURSORS_MESSAGE, type HistoryPageInput, type PageInput } from '../../discussion/inputs/page.input';
import type { TopicListInput } from '../../discussion/inputs/topic-list.input';
import type { TopicReadInput } from '../../discussion/inputs/topic-read.input';
import { validateInput } from '../../discussion/inputs/validate';
import { COMMENT_ORDERS, TOPIC_ORDERS } from '../../discussion/views';
import { reprList, reprString } from './python-repr';

const INTEGER_TEXT = /^-?[0-9]+$/;

/** `limit` must be decimal digits, optionally signed with `-` (`+5`, `1.5`, `` are not). */
const IntegerText = () =>
  Rule(
    'integerText',
    (v) => {
      if (v === undefined || (typeof v === 'string' && INTEGER_TEXT.test(v))) return null;
      return `Failed to cast value to integer type: ${String(v)}`;
    },
    { exception: 'ParameterValidationError' },
  );

/** Its value within 1..100, exactly as written (zero-padded or beyond any double: compared as a bigint). */
const PageSizeText = () =>
  Rule('pageSizeText', (v) => (typeof v === 'string' && INTEGER_TEXT.test(v) ? pageSizeProblem(BigInt(v)) : null));

const pythonOneOf = (values: readonly string[]) =>
  OneOf(values, (v) => `${reprString(String(v))} is not one of ${reprList(values)}`);

/** `limit` as its text: the cast is checked before the range (the first failing rule is reported). */
const LimitText = (): PropertyDecorator => (target, property) => {
  IntegerText()(target, property);
  PageSizeText()(target, property);
};

export class TopicListQuery {
  @LimitText() limit?: string;
  @Id36() before?: string;
  @Id36() after?: string;
  @Period() period?: string;
  @TagFilter() tag?: string;
  @pythonOneOf(TOPIC_ORDERS) order?: string;
  @NotBoth('before', 'after', BOTH_CURSORS_MESSAGE, 'before') readonly cursors?: never;
}

export class TopicReadQuery {
  @Id36() topic_id36!: string;
  @pythonOneOf(COMMENT_ORDERS) order?: string;
}

export class UserPageQuery {
  @LimitText() limit?: string;
  @Id36() before?: string;
  @Id36() after?: string;
  @NotBoth('before', 'after', BOTH_CURSORS_MESSAGE, 'before') readonly cursors?: never;
}

export class HistoryQuery {
  @LimitText() limit?: string;
  @MixedCursor() before?: string;
  @MixedCursor() after?: string;
  @NotBoth('before', 'after', BOTH_CURSORS_MESSAGE, 'before') readonly cursors?: never;
}

type Paging = { limit?: string; before?: string; after?: string };
const paging = (q: Paging) => ({
  limit: q.limit === undefined ? undefined : Number(q.limit),
  before: q.before,
  after: q.after,
});

/** The listing's input, or the ValidationError REST answers with. */
export function topicListInput(params: Omit<TopicListQuery, 'cursors'>): TopicListInput {
  const q = validateInput(TopicListQuery, params);
  return { ...paging(q), period: q.period, tag: q.tag, order: q.order };
}

export function topicReadInput(params: Omit<TopicReadQuery, 'topic_id36'> & { topic_id36: string }): TopicReadInput {
  const q = validateInput(TopicReadQuery, params);
  return { id: q.topic_id36, order: q.order };
}

export function userPageInput(params: Paging): PageInput {
  return paging(validateInput(UserPageQuery, params));
}

export function historyPageInput(params: Paging): HistoryPageInput {
  return paging(validateInput(HistoryQuery, params));
}
