/** Writing topics: post, edit, delete (author); remove, restore, lock, official, tags (admin). */
import type { Actor } from '../core/actor';
import { ForbiddenError, Issue, NotFoundError, ValidationError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import { normalizeGroupPath } from './rules/group-path';
import type { TopicDoc } from './models';
import { loadTopic, topicNotFound } from './post-access';
import { renderMarkdown } from './rules/markdown';
import { normalizeTags, tagMatchKeys } from './rules/tags';
import { countWords } from './rules/text';
import type { Caller, PostRef } from './services';
import { recordTopicPosted } from './live-events';
import { newTopicDocument } from './new-documents';
import { EDIT_GRACE_MS, topicView } from './view-builders';
import { mayModerate, requireAdmin, Viewer } from './viewer';
import type { EditTopicInput, PostTopicInput, TopicView } from './views';

const MAX_TITLE = 200;
const MAX_MARKDOWN = 50_000;
const MAX_LINK = 2000;

function checkTitle(title: unknown, issues: Issue[]): string {
  const t = typeof title === 'string' ? title.trim() : '';
  if (t === '') issues.push({ field: 'title', message: 'A title is required' });
  else if (t.length > MAX_TITLE) issues.push({ field: 'title', message: `Title must be at most ${MAX_TITLE} characters long` });
  return t;
}

function checkMarkdown(markdown: unknown, field: string, issues: Issue[]): string {
  if (markdown === undefined || markdown === null) return '';
  if (typeof markdown !== 'string') {
    issues.push({ field, message: 'Must be a string' });
    return '';
  }
  if (markdown.length > MAX_MARKDOWN) issues.push({ field, message: `Text must be at most ${MAX_MARKDOWN} characters long` });
  return markdown;
}

/**
 * A link is stored normalised (`new URL(link).href`): lowercase scheme and host, percent-encoded
 * quotes, spaces and angle brackets, so the stored value is one URL whatever was typed and never
 * carries markup (`http://x.example/"><script>` → `http://x.example/%22%3E%3Cscript%3E`).
 */
function checkLink(link: unknown, issues: Issue[]): string | null {
  if (link === undefined || link === null || link === '') return null;
  const l = typeof link === 'string' ? link.trim() : '';
  let href: string | null = null;
  if (l.length > 0 && l.length <= MAX_LINK) {
    try {
      const u = new URL(l);
      const web = u.protocol === 'http:' || u.protocol === 'https:';
      if (web && u.hostname !== '' && u.href.length <= MAX_LINK) href = u.href;
    } catch {
      // Not a URL: refused below.
    }
  }
  if (href === null) issues.push({ field: 'link', message: 'The link must be an http or https URL' });
  return href;
}

function checkTags(tags: unknown, issues: Issue[]): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
    issues.push({ field: 'tags', message: 'Tags must be a list of strings' });
    return [];
  }
  const r = normalizeTags(tags as string[]);
  if (r.invalid.length > 0) issues.push({ field: 'tags', message: `Invalid tags: ${r.invalid.join(', ')} (letters, numbers and spaces, levels separated by dots)` });
  else if (r.tooMany) issues.push({ field: 'tags', message: 'At most 20 tags' });
  return r.tags;
}

export class TopicCommands {
  constructor(private readonly d: DiscussionDeps) {}

  /** Posts a text topic (markdown) or a link topic (link) in an existing group. */
  async post(actor: Actor, input: PostTopicInput): Promise<TopicView> {
    const viewer = await this.d.viewers.require(actor);
    const issues: Issue[] = [];
    const groupPath = typeof input.group === 'string' ? normalizeGroupPath(input.group) : null;
    if (!groupPath) issues.push({ field: 'group', message: 'Unknown group' });
    const title = checkTitle(input.title, issues);
    const markdown = checkMarkdown(input.markdown, 'markdown', issues);
    const link = checkLink(input.link, issues);
    const tags = checkTags(input.tags, issues);
    if (issues.length > 0) throw new ValidationError(issues);
    if (!(await this.d.groups.findByPath(groupPath!))) throw new NotFoundError('Group not found', 'GROUP_NOT_FOUND');

    const now = this.d.clock.now();
    const doc = await this.d.topics.insertNew(
      newTopicDocument({ groupPath: groupPath!, author: { id: viewer.userId, username: viewer.username }, title, markdown, link, tags }, now),
    );
    await recordTopicPosted(this.d, doc);
    return topicView(doc, viewer, undefined);
  }

  /** The author edits title, text, link and tags; an admin may change title, link and tags. */
  async edit(actor: Actor, ref: PostRef, input: EditTopicInput): Promise<TopicView> {
    const viewer = await this.d.viewers.require(actor);
    const topic = await loadTopic(this.d, viewer, ref);
    const isAuthor = topic.authorId === viewer.userId;
    if (!isAuthor && !viewer.isAdmin) throw new ForbiddenError('Only the author can edit this topic', 'NOT_AUTHOR');
    if (!isAuthor && input.markdown !== undefined) throw new ForbiddenError("Only the author can edit a topic's text", 'NOT_AUTHOR');
    const issues: Issue[] = [];
    const set: Partial<TopicDoc> = {};
    if (input.title !== undefined) set.title = checkTitle(input.title, issues);
    if (input.markdown !== undefined) {
      set.markdown = checkMarkdown(input.markdown, 'markdown', issues);
      set.html = renderMarkdown(set.markdown);
      set.wordCount = countWords(set.html);
    }
    if (input.link !== undefined) set.link = checkLink(input.link, issues);
    if (input.tags !== undefined) {
      set.tags = checkTags(input.tags, issues);
      set.tagKeys = tagMatchKeys(set.tags);
    }
    if (issues.length > 0) throw new ValidationError(issues);
    const now = this.d.clock.now();
    if (now.getTime() - topic.createdAt.getTime() > EDIT_GRACE_MS) set.editedAt = now;
    const updated = await this.d.topics.update(topic._id, { set }, { deleted: false });
    if (!updated) throw topicNotFound();
    return this.view(updated, viewer);
  }

  /** The author deletes the topic: it disappears for everyone. */
  async delete(actor: Actor, ref: PostRef): Promise<void> {
    const viewer = await this.d.viewers.require(actor);
    const topic = await loadTopic(this.d, viewer, ref);
    if (topic.authorId !== viewer.userId) throw new ForbiddenError('Only the author can delete this topic', 'NOT_AUTHOR');
    await this.d.topics.update(topic._id, { set: { deleted: true, listed: false } });
  }

  async remove(caller: Caller, ref: PostRef): Promise<TopicView> {
    requireAdmin(caller);
    const topic = await loadTopic(this.d, caller, ref);
    return this.setAndView(caller, topic, { removed: true, listed: false });
  }

  async restore(caller: Caller, ref: PostRef): Promise<TopicView> {
    requireAdmin(caller);
    const topic = await loadTopic(this.d, caller, ref);
    return this.setAndView(caller, topic, { removed: false, listed: !topic.deleted });
  }

  async setLocked(caller: Caller, ref: PostRef, locked: boolean): Promise<TopicView> {
    requireAdmin(caller);
    return this.setAndView(caller, await loadTopic(this.d, caller, ref), { locked: locked === true });
  }

  async setOfficial(caller: Caller, ref: PostRef, official: boolean): Promise<TopicView> {
    requireAdmin(caller);
    return this.setAndView(caller, await loadTopic(this.d, caller, ref), { official: official === true });
  }

  /** The author or an admin replaces the tags. */
  async setTags(caller: Caller, ref: PostRef, tags: string[]): Promise<TopicView> {
    if (caller.kind === 'anonymous') await this.d.viewers.require(caller);
    const topic = await loadTopic(this.d, caller, ref);
    if (caller.kind === 'user' && !mayModerate(caller, topic.authorId)) throw new ForbiddenError('Only the author or an admin can change tags', 'NOT_AUTHOR');
    const issues: Issue[] = [];
    const normalized = checkTags(tags, issues);
    if (issues.length > 0) throw new ValidationError(issues);
    return this.setAndView(caller, topic, { tags: normalized, tagKeys: tagMatchKeys(normalized) });
  }

  private async setAndView(caller: Caller, topic: TopicDoc, set: Partial<TopicDoc>): Promise<TopicView> {
    const updated = await this.d.topics.update(topic._id, { set });
    if (!updated) throw topicNotFound();
    const viewer = caller.kind === 'user' ? await this.d.viewers.of(caller) : null;
    return this.view(updated, viewer);
  }

  private async view(topic: TopicDoc, viewer: Viewer | null): Promise<TopicView> {
    const mark = viewer ? await this.d.marks.find(viewer.userId, 'topic', topic._id) : null;
    return topicView(topic, viewer, mark ?? undefined);
  }
}
