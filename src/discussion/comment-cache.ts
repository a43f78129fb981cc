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
 * instance's write makes every instance's entry stale. If a process dies between writing a comment
 * and the key's write, other instances could serve the older comments: entries also expire after
 * `maxAgeSeconds`, which bounds that.
 *
 * Entries are frozen: the documents are shared by every request that reads the topic.
 */
import type { CommentDoc } from './models';

interface Entry {
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

  drop(topicId: number): void {
    const entry = this.entries.get(topicId);
    if (!entry) return;
    this.entries.delete(topicId);
    this.size -= entry.full.length;
  }
}

/** What a reader that did not ask for Markdown gets: the document without it. */
function withoutMarkdown({ markdown: _markdown, ...rest }: CommentDoc): CommentDoc {
  return rest as CommentDoc;
}

function freeze(doc: CommentDoc): CommentDoc {
  Object.freeze(doc.labelWeights);
  return Object.freeze(doc);
}
