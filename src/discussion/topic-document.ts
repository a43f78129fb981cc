/**
 * The stored form of a new topic: its text rendered once at write time, the derived fields
 * (word count, tag match keys) and every count and flag at its starting value. The service and
 * the benchmark seeder both build topics here, so seeded data has exactly the shape of posted data.
 */
import type { TopicDoc } from './models';
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
