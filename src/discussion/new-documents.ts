/**
 * The stored form of a new topic or comment: its text rendered once at write time, the derived
 * fields and every count and flag at its starting value. The services, the benchmark seeder and the
 * tests that bulk-insert large trees all build them here, so inserted data has exactly the shape of
 * posted data.
 */
import type { CommentDoc, TopicDoc } from './models';
import { NO_LABELS } from './rules/labels';
import { renderMarkdown } from './rules/markdown';
import { tagMatchKeys } from './rules/tags';
import { countWords } from './rules/text';

export interface NewTopic {
  groupPath: string;
  author: { id: number; username: string };
  title: string;
  markdown: string;
  link: string | null;
  /** Already normalized (rules/tags.ts normalizeTags). */
  tags: string[];
}

export function newTopicDocument(t: NewTopic, now: Date): Omit<TopicDoc, '_id'> {
  const html = renderMarkdown(t.markdown);
  return {
    groupPath: t.groupPath,
    authorId: t.author.id,
    authorUsername: t.author.username,
    title: t.title,
    markdown: t.markdown,
    html,
    link: t.link,
    wordCount: countWords(html),
    tags: t.tags,
    tagKeys: tagMatchKeys(t.tags),
    createdAt: now,
    editedAt: null,
    voteCount: 0,
    commentCount: 0,
    lastActivityAt: now,
    lastInterestingActivityAt: now,
    official: false,
    locked: false,
    deleted: false,
    removed: false,
    listed: true,
  };
}

export interface NewComment {
  topic: { id: number; authorId: number };
  parentId: number | null;
  author: { id: number; username: string };
  markdown: string;
  /** Its place in the tree: 0 at top level, its parent's depth + 1 for a reply. */
  depth: number;
}

export function newCommentDocument(c: NewComment, now: Date): Omit<CommentDoc, '_id'> {
  return {
    topicId: c.topic.id,
    parentId: c.parentId,
    authorId: c.author.id,
    authorUsername: c.author.username,
    topicAuthorId: c.topic.authorId,
    markdown: c.markdown,
    html: renderMarkdown(c.markdown),
    createdAt: now,
    editedAt: null,
    voteCount: 0,
    deleted: false,
    removed: false,
    labelWeights: { ...NO_LABELS },
    interesting: true,
    depth: c.depth,
  };
}
