/**
 * The comments of recently read topics, kept per process: reading and decoding a big topic's
 * comments is most of the cost of showing it (5,000 comments: ~0.3 s of database time and ~0.1 s
 * of BSON decoding on the embedded database), and big topics are read far more often than written.
 *
 * Correctness stays in the database (docs/architecture.md, "The layers and their rules", 5): after a
 * comment is written, a post raises its topic's `commentPosts` and every other change gives the
 * topic's comments a new random version (collection `comment_versions`); an entry is used only while
 * the two just read are the ones it was stored under (CommentRepository.forTopic makes the key).
 * Both are read before the comments, so an entry can be newer than its key but never older; any
 * instance's write makes every instance's entry stale, except that the instance that made a post
 * moves its own entry on to the post's key when it can tell nothing else came in between (addPost).
 * If a process dies between writing a comment and the key's write, other instances could serve the
 * older comments: entries also expire after `maxAgeSeconds`, which bounds that.
 *
 * Entries are frozen: the documents are shared by every request that reads the topic.
 */
import type { CommentDoc } from './models';

interface Entry {
  /** The key it was kept under (CommentRepository.forTopic), moved on by this process's posts. */
  version: string | null;
  storedAt: number;
  /** With `markdown`, as read. */
  full: readonly CommentDoc[];
  /** Without `markdown` (what a reader that did not ask for it gets), made on first use. */
  lean?: readonly CommentDoc[];
}

export interface CommentCacheOptions {
  /** Comments kept over all topics; 0 turns the cache off. */
  capacity: number;
  maxAgeSeconds: number;
}

export class TopicCommentCache {
  private readonly entries = new Map<number, Entry>();
  private size = 0;

  constructor(
    private readonly opts: CommentCacheOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.opts.capacity > 0;
  }

  /** The topic's comments if they were stored under `version` and are not too old. */
  get(topicId: number, version: string | null, withMarkdown: boolean): readonly CommentDoc[] | undefined {
    const entry = this.entries.get(topicId);
    if (!entry) return undefined;
    if (entry.version !== version || this.now() - entry.storedAt > this.opts.maxAgeSeconds * 1000) {
      this.drop(topicId);
      return undefined;
    }
    // Least recently used order: refresh the position.
    this.entries.delete(topicId);
    this.entries.set(topicId, entry);
    if (withMarkdown) return entry.full;
    entry.lean ??= entry.full.map((doc) => freeze(withoutMarkdown(doc)));
    return entry.lean;
  }

  /**
   * Keeps comments read with their Markdown under the version read before them; returns them as
   * the caller asked for them. A topic larger than the whole cache is not kept.
   */
  set(topicId: number, version: string | null, full: CommentDoc[], withMarkdown: boolean): readonly CommentDoc[] {
    this.drop(topicId);
    if (full.length > this.opts.capacity) return withMarkdown ? full : full.map(withoutMarkdown);
    for (const doc of full) freeze(doc);
    this.entries.set(topicId, { version, storedAt: this.now(), full });
    this.size += full.length;
    while (this.size > this.opts.capacity) this.drop(this.entries.keys().next().value as number);
    return this.get(topicId, version, withMarkdown)!;
  }

  /**
   * A post made by this process, once its own increment of the topic's count of posts answered:
   * `nextKey` says under which key the entry, if it was kept under the key just before that
   * increment, now holds exactly its comments plus `doc` (null: under any other key, as when another
   * post or a change came in between, the entry goes). So a topic read after every post by its own
   * process stays cached instead of being read whole again. The entry keeps the age of its read.
   */
  addPost(topicId: number, nextKey: (key: string) => string | null, doc: CommentDoc): void {
    const entry = this.entries.get(topicId);
    if (!entry) return;
    const key = entry.version === null ? null : nextKey(entry.version);
    if (key === null) {
      this.drop(topicId);
      return;
    }
    entry.version = key;
    // A read in between (after the insert, before the count moved) may have kept it already.
    const at = sortedIndex(entry.full, doc._id);
    if (entry.full[at]?._id === doc._id) return;
    const kept = freeze({ ...doc, labelWeights: { ...doc.labelWeights } });
    entry.full = [...entry.full.slice(0, at), kept, ...entry.full.slice(at)];
    if (entry.lean) entry.lean = [...entry.lean.slice(0, at), freeze(withoutMarkdown(kept)), ...entry.lean.slice(at)];
    this.size += 1;
    while (this.size > this.opts.capacity) this.drop(this.entries.keys().next().value as number);
  }

  drop(topicId: number): void {
    const entry = this.entries.get(topicId);
    if (!entry) return;
    this.entries.delete(topicId);
    this.size -= entry.full.length;
  }
}

/** Where a comment with `_id` goes among comments sorted by `_id` (as topics' comments are read). */
function sortedIndex(docs: readonly CommentDoc[], id: number): number {
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]!._id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What a reader that did not ask for Markdown gets: the document without it. */
function withoutMarkdown({ markdown: _markdown, ...rest }: CommentDoc): CommentDoc {
  return rest as CommentDoc;
}

function freeze(doc: CommentDoc): CommentDoc {
  Object.freeze(doc.labelWeights);
  return Object.freeze(doc);
}
