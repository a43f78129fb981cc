/** Writing topics: post, edit, delete (author); remove, restore, lock, official, tags (admin). */
import type { Actor } from '../core/actor';
import { ForbiddenError, NotFoundError } from '../core/errors';
import type { DiscussionDeps } from './deps';
import { normalizeGroupPath } from './rules/group-path';
import type { TopicDoc } from './models';
import type { TopicEdit } from './topic.repository';
import { loadTopic, topicNotFound } from './post-access';
import { renderMarkdown } from './rules/markdown';
import { normalizeTags, tagMatchKeys } from './rules/tags';
import { countWords, normalizeLink } from './rules/text';
import type { Caller, PostRef } from './services';
import { recordTopicPosted } from './live-events';
import { newTopicDocument } from './new-documents';
import { EDIT_GRACE_MS, topicView } from './view-builders';
import { mayModerate, requireAdmin, Viewer } from './viewer';
import type { TopicView } from './views';
import { EditTopicInput, TopicTagsInput } from './inputs/edit-topic.input';
import { PostTopicInput } from './inputs/post-topic.input';
import { validateInput } from './inputs/validate';
import { countWrite } from './write-limits';

/** Tags as stored: normalised, deduplicated (validated already). */
const storedTags = (tags: readonly string[] | null | undefined) => normalizeTags(tags ?? []).tags;
/** A link as stored; null for none (validated already). */
const storedLink = (link: string | null | undefined) =>
  link === undefined || link === null || link === '' ? null : normalizeLink(link);

export class TopicCommandService {
  constructor(private readonly d: DiscussionDeps) {}

  /** Posts a text topic (markdown) or a link topic (link) in an existing group. */
  async post(actor: Actor, input: PostTopicInput): Promise<TopicView> {
    const viewer = await this.d.viewers.require(actor);
    validateInput(PostTopicInput, input);
    await countWrite(this.d, viewer, 'topic');
    const groupPath = normalizeGroupPath(input.group)!;
    const title = input.title.trim();
    const markdown = input.markdown ?? '';
    const link = storedLink(input.link);
    const tags = storedTags(input.tags);
    if (!(await this.d.groups.findByPath(groupPath))) throw new NotFoundError('Group not found', 'GROUP_NOT_FOUND');

    const now = this.d.clock.now();
    const doc = await this.d.topics.insertNew(
      newTopicDocument(
        { groupPath, author: { id: viewer.userId, username: viewer.username }, title, markdown, link, tags },
        now,
      ),
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
    if (!isAuthor && input.markdown !== undefined)
      throw new ForbiddenError("Only the author can edit a topic's text", 'NOT_AUTHOR');
    validateInput(EditTopicInput, input);
    const set: TopicEdit = {};
    if (input.title !== undefined) set.title = input.title.trim();
    if (input.markdown !== undefined) {
      set.markdown = input.markdown ?? '';
      set.html = renderMarkdown(set.markdown);
      set.wordCount = countWords(set.html);
    }
    if (input.link !== undefined) set.link = storedLink(input.link);
    if (input.tags !== undefined) {
      set.tags = storedTags(input.tags);
      set.tagKeys = tagMatchKeys(set.tags);
    }
    const now = this.d.clock.now();
    if (now.getTime() - topic.createdAt.getTime() > EDIT_GRACE_MS) set.editedAt = now;
    const updated = await this.d.topics.edit(topic._id, set);
    if (!updated) throw topicNotFound();
    return this.view(updated, viewer);
  }

  /** The author deletes the topic: it disappears for everyone. */
  async delete(actor: Actor, ref: PostRef): Promise<void> {
    const viewer = await this.d.viewers.require(actor);
    const topic = await loadTopic(this.d, viewer, ref);
    if (topic.authorId !== viewer.userId)
      throw new ForbiddenError('Only the author can delete this topic', 'NOT_AUTHOR');
    await this.d.topics.markDeleted(topic._id);
  }

  async remove(caller: Caller, ref: PostRef): Promise<TopicView> {
    requireAdmin(caller);
    const topic = await loadTopic(this.d, caller, ref);
    return this.viewAfter(caller, this.d.topics.setRemoved(topic._id, true, topic.deleted));
  }

  async restore(caller: Caller, ref: PostRef): Promise<TopicView> {
    requireAdmin(caller);
    const topic = await loadTopic(this.d, caller, ref);
    return this.viewAfter(caller, this.d.topics.setRemoved(topic._id, false, topic.deleted));
  }

  async setLocked(caller: Caller, ref: PostRef, locked: boolean): Promise<TopicView> {
    requireAdmin(caller);
    const topic = await loadTopic(this.d, caller, ref);
    return this.viewAfter(caller, this.d.topics.setLocked(topic._id, locked === true));
  }

  async setOfficial(caller: Caller, ref: PostRef, official: boolean): Promise<TopicView> {
    requireAdmin(caller);
    const topic = await loadTopic(this.d, caller, ref);
    return this.viewAfter(caller, this.d.topics.setOfficial(topic._id, official === true));
  }

  /** The author or an admin replaces the tags. */
  async setTags(caller: Caller, ref: PostRef, tags: string[]): Promise<TopicView> {
    if (caller.kind === 'anonymous') await this.d.viewers.require(caller);
    const topic = await loadTopic(this.d, caller, ref);
    if (caller.kind === 'user' && !mayModerate(caller, topic.authorId))
      throw new ForbiddenError('Only the author or an admin can change tags', 'NOT_AUTHOR');
    validateInput(TopicTagsInput, { tags });
    const normalized = storedTags(tags);
    return this.viewAfter(caller, this.d.topics.setTags(topic._id, normalized, tagMatchKeys(normalized)));
  }

  /** The topic after an admin's (or the author's) change, as the caller sees it. */
  private async viewAfter(caller: Caller, change: Promise<TopicDoc | null>): Promise<TopicView> {
    const updated = await change;
    if (!updated) throw topicNotFound();
    const viewer = caller.kind === 'user' ? await this.d.viewers.of(caller) : null;
    return this.view(updated, viewer);
  }

  private async view(topic: TopicDoc, viewer: Viewer | null): Promise<TopicView> {
    const mark = viewer ? await this.d.marks.find(viewer.userId, 'topic', topic._id) : null;
    return topicView(topic, viewer, mark ?? undefined);
  }
}
