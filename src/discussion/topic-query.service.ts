/** Reading topics: the listing (5), one topic with its comment tree (6), lookups for loaders. */
import type { Actor } from '../core/actor';
import { isNoSpaceError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import { EMPTY_PAGE_INFO, pageFromRows } from './keyset';
import { TOPIC_SORT_FIELDS, TopicDoc } from './models';
import { loadTopic, topicNotFound } from './post-access';
import { buildCommentTree, collapseTree, TreeNode } from './rules/comment-tree';
import { id36ToNumber, toId36 } from './rules/id36';
import { normalizeGroupPath } from './rules/group-path';
import { parsePeriod, periodStart } from './rules/period';
import { parseTagFilter } from './rules/tags';
import type { PostRef } from './services';
import { commentView, indexMarks, topicView } from './view-builders';
import { mayModerate } from './viewer';
import type { CommentOrder, CommentView, Page, TopicOrder, TopicView, TopicWithComments } from './views';
import type { TopicInOrders, TreeOrders } from './services';
import type { CommentDoc } from './models';
import { DEFAULT_PAGE_SIZE } from './inputs/rules';
import { TopicListInput } from './inputs/topic-list.input';
import { TopicReadInput } from './inputs/topic-read.input';
import { validateInput } from './inputs/validate';

/** The id an id36 names (null: none can exist); the id36 was validated. */
const idOf = (id36: string | undefined) => (id36 === undefined ? undefined : { id: id36ToNumber(id36) });

export class TopicQueryService {
  constructor(private readonly d: DiscussionDeps) {}

  /**
   * The topic listing: every group (or, with `group`, one group and its subgroups), deleted/removed
   * never, the viewer's ignored topics excluded; keyset pages over the chosen order. At most four
   * database commands: the viewer (already loaded with the token), the cursor's topic, the page,
   * the viewer's marks on the page; `group` adds one (the group's paths, read alongside the cursor).
   */
  async list(actor: Actor, args: TopicListInput): Promise<Page<TopicView>> {
    const input = validateInput(TopicListInput, args);
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const before = idOf(input.before);
    const after = idOf(input.after);
    const period = input.period === undefined ? { kind: 'all' as const } : parsePeriod(input.period)!;
    const tagFilter = input.tag === undefined ? undefined : parseTagFilter(input.tag);
    const tagKey = tagFilter?.ok ? tagFilter.key : undefined;
    const group = input.group === undefined ? undefined : normalizeGroupPath(input.group)!;
    const order = (input.order ?? 'activity') as TopicOrder;

    const viewer = await this.d.viewers.of(actor);
    const sortField = TOPIC_SORT_FIELDS[order];
    const cursor = after ?? before;
    const direction = after ? 'after' : before ? 'before' : 'first';
    const [anchorTopic, groupPaths] = await Promise.all([
      cursor && cursor.id !== null ? this.d.topics.findById(cursor.id) : null,
      group !== undefined ? this.d.groups.pathsUnder(group) : undefined,
    ]);
    if (cursor && !anchorTopic) return { items: [], pageInfo: EMPTY_PAGE_INFO };
    if (groupPaths !== undefined && groupPaths.length === 0) return { items: [], pageInfo: EMPTY_PAGE_INFO };
    const anchor = anchorTopic
      ? { value: anchorTopic[sortField as keyof TopicDoc] as number | Date, id: anchorTopic._id }
      : undefined;
    const rows = await this.d.topics.list({
      sortField,
      direction,
      anchor,
      tagKey,
      groupPaths,
      createdAfter: periodStart(period, this.d.clock.now()) ?? undefined,
      excludeIds: viewer ? [...viewer.ignoredTopicIds] : undefined,
      take: limit + 1,
    });
    const page = pageFromRows(rows, limit, direction, (t) => toId36(t._id));
    const marks =
      viewer && page.items.length > 0
        ? indexMarks(
            await this.d.marks.forPosts(
              viewer.userId,
              page.items.map((t) => t._id),
              [],
            ),
          )
        : null;
    return { items: page.items.map((t) => topicView(t, viewer, marks?.topic.get(t._id))), pageInfo: page.pageInfo };
  }

  /**
   * One topic with its whole comment tree, as the viewer may see it; then records the viewer's
   * visit (the response reflects the previous one). At most six database commands.
   */
  async read(actor: Actor, topicId36: string, args: Omit<TopicReadInput, 'id'> = {}): Promise<TopicWithComments> {
    const input = validateInput(TopicReadInput, { ...args, id: topicId36 });
    const loaded = await this.load(actor, input.id, input.markdown !== false);
    const comments = loaded.tree(input.order as CommentOrder | undefined);
    const result: TopicWithComments = { topic: loaded.topicView, comments };
    const { viewer, topic } = loaded;
    if (viewer && input.recordVisit !== false) {
      // A database out of space still serves reads: the visit then goes unrecorded.
      const recorded = this.d.marks.recordVisit(viewer.userId, topic._id, this.d.clock.now(), topic.commentCount);
      await recorded.catch((err: unknown) => {
        if (!isNoSpaceError(err)) throw err;
      });
    }
    return result;
  }

  /**
   * One topic and its comment tree in each of `orders` (undefined: the viewer's preferred order),
   * from one read, for a client showing it (GraphQL's `topic { threads(order) }`): a display read
   * records no visit (the client says when the topic was seen: VisitApi.record).
   */
  async readInOrders(actor: Actor, topicId36: string, opts: TreeOrders): Promise<TopicInOrders> {
    const input = validateInput(TopicReadInput, { id: topicId36 });
    for (const order of opts.orders) validateInput(TopicReadInput, { id: topicId36, order });
    const loaded = await this.load(actor, input.id, opts.markdown);
    const trees = opts.orders.map((order) => loaded.tree(order as CommentOrder | undefined));
    return { topic: loaded.topicView, trees };
  }

  /** The topic, its comments and the viewer's marks on them; trees built on demand, in any order. */
  private async load(actor: Actor, id36: string, markdown: boolean) {
    const viewer = await this.d.viewers.of(actor);
    const topicId = id36ToNumber(id36);
    if (topicId === null) throw topicNotFound();

    // Markdown is shown only to a comment's author and admins: never worth reading for anonymous viewers.
    const withMarkdown = viewer !== null && markdown;
    // The topic (its `commentPosts`) and the version of its comments first, then the comments: they
    // come from the cache while both are the ones they were kept under (CommentRepository.forTopic),
    // and a hidden topic's are never read.
    const [topic, version, markList] = await Promise.all([
      this.d.topics.findById(topicId),
      this.d.comments.versionOf(topicId),
      viewer ? this.d.marks.forTopicPage(viewer.userId, topicId) : Promise.resolve([]),
    ]);
    if (!topic || topic.deleted || (topic.removed && !mayModerate(viewer, topic.authorId))) throw topicNotFound();
    const comments = await this.d.comments.forTopic(topic, version, withMarkdown);
    const marks = indexMarks(markList);
    const topicMark = marks.topic.get(topic._id);
    const previousVisit = viewer ? (topicMark?.visitAt ?? null) : null;
    const toView = (node: TreeNode<TreeComment>, children: CommentView[]): CommentView =>
      commentView(node.comment.doc, {
        viewer,
        mark: marks.comment.get(node.comment.id),
        previousVisit,
        tree: { depth: node.depth, state: node.state, children },
      });

    /** The tree in `requested` order (undefined: the viewer's preferred one, relevance for anonymous viewers). */
    const tree = (requested: CommentOrder | undefined): CommentView[] => {
      const order = requested ?? (viewer ? viewer.settings.defaultCommentOrder : 'relevance');
      const roots = buildCommentTree(comments.map(asTreeInput), order);
      const collapseOldComments = viewer?.settings.collapseOldComments ?? false;
      collapseTree(roots, viewer ? { userId: viewer.userId, previousVisit, collapseOldComments } : null);
      return viewTree(roots, toView);
    };
    return { viewer, topic, topicView: topicView(topic, viewer, topicMark), tree };
  }

  async get(actor: Actor, ref: PostRef): Promise<TopicView> {
    const viewer = await this.d.viewers.of(actor);
    const topic = await loadTopic(this.d, viewer, ref);
    const mark = viewer ? await this.d.marks.find(viewer.userId, 'topic', topic._id) : null;
    return topicView(topic, viewer, mark ?? undefined);
  }

  async findByIds(actor: Actor, ids: readonly number[]): Promise<(TopicView | null)[]> {
    const viewer = await this.d.viewers.of(actor);
    const docs = await this.d.topics.findByIds(ids);
    const visible = docs.filter((t) => !t.deleted && (!t.removed || mayModerate(viewer, t.authorId)));
    const marks =
      viewer && visible.length > 0
        ? indexMarks(
            await this.d.marks.forPosts(
              viewer.userId,
              visible.map((t) => t._id),
              [],
            ),
          )
        : null;
    const byId = new Map(visible.map((t) => [t._id, topicView(t, viewer, marks?.topic.get(t._id))]));
    return ids.map((id) => byId.get(id) ?? null);
  }
}

interface TreeComment {
  id: number;
  parentId: number | null;
  authorId: number;
  createdAt: Date;
  votes: number;
  deleted: boolean;
  removed: boolean;
  labelWeights: CommentDoc['labelWeights'];
  doc: CommentDoc;
}

function asTreeInput(c: CommentDoc): TreeComment {
  return {
    id: c._id,
    parentId: c.parentId ?? null,
    authorId: c.authorId,
    createdAt: c.createdAt,
    votes: c.voteCount,
    deleted: c.deleted,
    removed: c.removed,
    labelWeights: c.labelWeights,
    doc: c,
  };
}

/** Maps a tree bottom-up without recursion (deep reply chains must not overflow the stack). */
function viewTree<T extends { children: T[] }, V>(roots: readonly T[], map: (node: T, children: V[]) => V): V[] {
  const done = new Map<T, V>();
  const stack: { node: T; expanded: boolean }[] = roots.map((node) => ({ node, expanded: false })).reverse();
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (!top.expanded) {
      top.expanded = true;
      for (let i = top.node.children.length - 1; i >= 0; i--)
        stack.push({ node: top.node.children[i]!, expanded: false });
    } else {
      stack.pop();
      done.set(
        top.node,
        map(
          top.node,
          top.node.children.map((c) => done.get(c)!),
        ),
      );
    }
  }
  return roots.map((r) => done.get(r)!);
}
