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
 *
 * Bounded twice, least recently used topic first out (lru-cache): by bytes (COMMENT_CACHE_BYTES;
 * one comment may be 50,000 characters of Markdown with its HTML, so a count alone bounds nothing)
 * and by comments (COMMENT_CACHE_SIZE). An entry's size is estimated from its documents
 * (core/approx-bytes.ts) plus the shells of the lean copies, which share the documents' strings and
 * are counted from the start so that making them never outgrows the budget.
 */
import { LRUCache } from 'lru-cache';
import { approximateBytes, objectShellBytes } from '../core/approx-bytes';
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
  /** Estimated bytes kept over all topics (default COMMENT_CACHE_BYTES); 0 turns the cache off. */
  bytes?: number;
}

/** The default byte budget. */
export const COMMENT_CACHE_BYTES = 128 * 1024 * 1024;

/** The estimated bytes of an entry: its documents, and the lean copies' own objects. */
function entryBytes(entry: Entry): number {
  let n = 128 + 2 * (32 + 8 * entry.full.length);
  for (const doc of entry.full) n += approximateBytes(doc) + objectShellBytes(doc);
  return n;
}

export class TopicCommentCache {
  private readonly entries: LRUCache<number, Entry> | undefined;
  /** Comments held over all entries. */
  private size = 0;

  constructor(
    private readonly opts: CommentCacheOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    const bytes = opts.bytes ?? COMMENT_CACHE_BYTES;
    this.entries =
      opts.capacity > 0 && bytes > 0
        ? new LRUCache<number, Entry>({
            maxSize: bytes,
            sizeCalculation: entryBytes,
            dispose: (entry) => {
              this.size -= entry.full.length;
            },
          })
        : undefined;
  }

  get enabled(): boolean {
    return this.entries !== undefined;
  }

  /** Estimated bytes held (at most the byte budget). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  /** The topic's comments if they were stored under `version` and are not too old. */
  get(topicId: number, version: string | null, withMarkdown: boolean): readonly CommentDoc[] | undefined {
    // Refreshes the entry's place in the least recently used order.
    const entry = this.entries?.get(topicId);
    if (!entry) return undefined;
    if (entry.version !== version || this.now() - entry.storedAt > this.opts.maxAgeSeconds * 1000) {
      this.drop(topicId);
      return undefined;
    }
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
    const uncached = () => (withMarkdown ? full : full.map(withoutMarkdown));
    if (!this.entries || full.length > this.opts.capacity) return uncached();
    for (const doc of full) freeze(doc);
    this.keep(topicId, { version, storedAt: this.now(), full });
    // Over the byte budget on its own: not kept (lru-cache refuses it).
    return this.get(topicId, version, withMarkdown) ?? uncached();
  }

  /** Stores (or re-measures) an entry whose comments `size` does not count yet, then evicts down to the budgets. */
  private keep(topicId: number, entry: Entry): void {
    this.entries!.set(topicId, entry);
    if (this.entries!.has(topicId)) this.size += entry.full.length;
    while (this.size > this.opts.capacity) this.entries!.pop();
  }

  /**
   * A post made by this process, once its own increment of the topic's count of posts answered:
   * `nextKey` says under which key the entry, if it was kept under the key just before that
   * increment, now holds exactly its comments plus `doc` (null: under any other key, as when another
   * post or a change came in between, the entry goes). So a topic read after every post by its own
   * process stays cached instead of being read whole again. The entry keeps the age of its read.
   */
  addPost(topicId: number, nextKey: (key: string) => string | null, doc: CommentDoc): void {
    const entry = this.entries?.peek(topicId);
    if (!entry) return;
    const key = entry.version === null ? null : nextKey(entry.version);
    if (key === null) {
      this.drop(topicId);
      return;
    }
    // A read in between (after the insert, before the count moved) may have kept it already.
    const at = sortedIndex(entry.full, doc._id);
    if (entry.full[at]?._id === doc._id) {
      entry.version = key;
      return;
    }
    const kept = freeze({ ...doc, labelWeights: { ...doc.labelWeights } });
    const full = [...entry.full.slice(0, at), kept, ...entry.full.slice(at)];
    const lean = entry.lean && [...entry.lean.slice(0, at), freeze(withoutMarkdown(kept)), ...entry.lean.slice(at)];
    // A new entry object, so the old one is disposed (its comments leave the count) and the new one
    // measured; it keeps the age of its read.
    this.keep(topicId, { version: key, storedAt: entry.storedAt, full, lean });
  }

  drop(topicId: number): void {
    this.entries?.delete(topicId);
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
