import { TopicCommentCache } from '../../../src/discussion/comment-cache';
import type { CommentDoc } from '../../../src/discussion/models';

const doc = (id: number, topicId = 1): CommentDoc =>
  ({
    _id: id,
    topicId,
    markdown: `md ${id}`,
    html: `<p>${id}</p>`,
    labelWeights: { exemplary: 0, noise: 0, offtopic: 0, joke: 0, malice: 0 },
  }) as unknown as CommentDoc;
const docs = (n: number, topicId = 1) => Array.from({ length: n }, (_, i) => doc(i + 1, topicId));

let clock = 0;
const cache = (capacity = 10, maxAgeSeconds = 60) => new TopicCommentCache({ capacity, maxAgeSeconds }, () => clock);

beforeEach(() => {
  clock = 0;
});

it('returns what was kept under the same version, and nothing under another', () => {
  const c = cache();
  c.set(1, 'v1', docs(3), true);
  expect(c.get(1, 'v1', true)?.map((d) => d._id)).toEqual([1, 2, 3]);
  expect(c.get(1, 'v2', true)).toBeUndefined();
  expect(c.get(1, 'v1', true)).toBeUndefined(); // a stale entry is dropped, not kept for later
  c.set(2, null, docs(1, 2), true); // a topic whose comments never changed has no version yet
  expect(c.get(2, null, true)).toHaveLength(1);
});

it('gives the documents without Markdown to a reader that did not ask for it', () => {
  const c = cache();
  const lean = c.set(1, 'v', docs(2), false);
  expect(lean.every((d) => !('markdown' in d))).toBe(true);
  expect(c.get(1, 'v', true)?.map((d) => d.markdown)).toEqual(['md 1', 'md 2']);
  expect(c.get(1, 'v', false)?.map((d) => d.html)).toEqual(['<p>1</p>', '<p>2</p>']);
});

it('freezes what it shares', () => {
  const c = cache();
  const [first] = c.set(1, 'v', docs(1), true);
  expect(Object.isFrozen(first)).toBe(true);
  expect(Object.isFrozen(first!.labelWeights)).toBe(true);
  expect(Object.isFrozen(c.get(1, 'v', false)![0])).toBe(true);
});

it('forgets entries older than the maximum age', () => {
  const c = cache(10, 60);
  c.set(1, 'v', docs(1), true);
  clock = 59_000;
  expect(c.get(1, 'v', true)).toBeDefined();
  clock = 60_001;
  expect(c.get(1, 'v', true)).toBeUndefined();
});

it('keeps at most `capacity` comments, dropping the least recently read topics first', () => {
  const c = cache(10);
  c.set(1, 'v', docs(4, 1), true);
  c.set(2, 'v', docs(4, 2), true);
  c.get(1, 'v', true); // topic 1 is now the most recently used
  c.set(3, 'v', docs(4, 3), true); // 12 > 10: topic 2 goes
  expect(c.get(2, 'v', true)).toBeUndefined();
  expect(c.get(1, 'v', true)).toBeDefined();
  expect(c.get(3, 'v', true)).toBeDefined();
});

it('does not keep a topic larger than the whole cache, and still answers with it', () => {
  const c = cache(3);
  expect(c.set(1, 'v', docs(5), false)).toHaveLength(5);
  expect(c.get(1, 'v', true)).toBeUndefined();
});

it('drop removes an entry at once', () => {
  const c = cache();
  c.set(1, 'v', docs(2), true);
  c.drop(1);
  expect(c.get(1, 'v', true)).toBeUndefined();
});

describe("addPost: this process's own post keeps its topic cached", () => {
  const next = (from: string, to: string) => (key: string) => (key === from ? to : null);

  it('adds the comment in id order under the next key, with and without Markdown', () => {
    const c = cache();
    c.set(1, 'v/2', [doc(1), doc(3)], false);
    c.addPost(1, next('v/2', 'v/3'), doc(2));
    expect(c.get(1, 'v/3', true)?.map((d) => d._id)).toEqual([1, 2, 3]);
    const lean = c.get(1, 'v/3', false)!;
    expect(lean.map((d) => d._id)).toEqual([1, 2, 3]);
    expect(lean.every((d) => !('markdown' in d) && Object.isFrozen(d))).toBe(true);
    c.addPost(1, next('v/3', 'v/4'), doc(4));
    expect(c.get(1, 'v/4', false)?.map((d) => d._id)).toEqual([1, 2, 3, 4]);
    expect(c.get(1, 'v/3', true)).toBeUndefined(); // the key before the post no longer serves it
  });

  it('drops the entry when the key does not follow (another post or a change came in between)', () => {
    const c = cache();
    c.set(1, 'v/2', docs(2), true);
    c.addPost(1, next('v/3', 'v/4'), doc(5));
    expect(c.get(1, 'v/2', true)).toBeUndefined();
    expect(c.get(1, 'v/4', true)).toBeUndefined();
  });

  it('keeps a comment once when a read in between already kept it', () => {
    const c = cache();
    c.set(1, 'v/2', docs(3), true);
    c.addPost(1, next('v/2', 'v/3'), doc(3));
    expect(c.get(1, 'v/3', true)?.map((d) => d._id)).toEqual([1, 2, 3]);
  });

  it("keeps the read's age, freezes a copy, and stays within capacity", () => {
    const c = cache(3, 60);
    c.set(1, 'v/1', docs(2), true);
    clock = 30_000;
    const posted = doc(9);
    c.addPost(1, next('v/1', 'v/2'), posted);
    expect(Object.isFrozen(posted)).toBe(false);
    expect(Object.isFrozen(c.get(1, 'v/2', true)![2])).toBe(true);
    clock = 60_001;
    expect(c.get(1, 'v/2', true)).toBeUndefined();
    c.set(1, 'v/1', docs(3), true);
    c.addPost(1, next('v/1', 'v/2'), doc(9)); // 4 comments, over the capacity of 3
    expect(c.get(1, 'v/2', true)).toBeUndefined();
  });

  it('does nothing for a topic not kept', () => {
    const c = cache();
    c.addPost(7, () => 'x', doc(1, 7));
    expect(c.get(7, 'x', true)).toBeUndefined();
  });
});
