/**
 * The comment trees read during one request, by topic, order and whether they carry the comments'
 * Markdown source: `Query.topic` stores the trees its look-ahead read, `Topic.threads` finds them
 * (or reads its own). A tree with Markdown also serves a selection without it.
 */
import type { GraphQLContext } from '../context';
import { loader } from '../context';
import type { CommentOrder } from './enums';
import type { ThreadNode } from './nodes';

type Tree = Promise<ThreadNode[]>;

interface TreesOfTopic {
  /** By requested order (undefined: the viewer's preferred one). */
  withMarkdown: Map<CommentOrder | undefined, Tree>;
  htmlOnly: Map<CommentOrder | undefined, Tree>;
}

export class TopicTreeCache {
  private readonly topics = new Map<number, TreesOfTopic>();

  /** The tree that serves this selection, if one was read: with Markdown when asked, else either. */
  find(topicId: number, order: CommentOrder | undefined, markdown: boolean): Tree | undefined {
    const t = this.topics.get(topicId);
    if (!t) return undefined;
    return t.withMarkdown.get(order) ?? (markdown ? undefined : t.htmlOnly.get(order));
  }

  put(topicId: number, order: CommentOrder | undefined, markdown: boolean, tree: Tree): Tree {
    let t = this.topics.get(topicId);
    if (!t) this.topics.set(topicId, (t = { withMarkdown: new Map(), htmlOnly: new Map() }));
    (markdown ? t.withMarkdown : t.htmlOnly).set(order, tree);
    return tree;
  }
}

/** This request's trees. */
export function topicTrees(ctx: GraphQLContext): TopicTreeCache {
  return loader(ctx, 'topicTrees', () => new TopicTreeCache());
}
