import { hasVisibleText } from '../../../src/discussion/inputs/rules';
import { renderMarkdown } from '../../../src/discussion/rules/markdown';
import { reprJsonMember, reprList, reprString } from '../../../src/rest/beta/python-repr';
import {
  contentMetadata,
  countWords,
  formatWordCount,
  slugify,
  slugOf,
  sourceSiteName,
} from '../../../src/discussion/rules/text';

describe('slug (4.2)', () => {
  it.each([
    ["What's your favourite editor?", 'whats_your_favourite_editor'],
    ['Café & crème', 'caf%C3%A9_cr%C3%A8me'],
    [
      "Live performance of 'Clair de Lune' on a restored Pleyel",
      'live_performance_of_clair_de_lune_on_a_restored_pleyel',
    ],
    ['Which board games work well with two players?', 'which_board_games_work_well_with_two_players'],
    ['It’s __ fine --- really', 'its_fine_really'],
    ['???', ''],
    ['snake_case_title', 'snake_case_title'],
  ])('%p → %p', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('slugOf gives slugify’s slug, also for titles seen before and after the memo is cleared', () => {
    const titles = Array.from({ length: 5000 }, (_, i) => `Topic ${i % 4500} — ‘naïve’ café ${i}`);
    for (const title of [...titles, ...titles.slice(0, 100)]) expect(slugOf(title)).toBe(slugify(title));
  });

  it('cuts long slugs at the last underscore within 100 characters', () => {
    const title = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const slug = slugify(title);
    expect(slug.length).toBeLessThanOrEqual(100);
    expect(slug.endsWith('_')).toBe(false);
    expect(`${slug}_`).toBe(title.replace(/ /g, '_').slice(0, slug.length + 1));
  });

  it('keeps the first 100 characters when there is no underscore, never a partial escape', () => {
    expect(slugify('a'.repeat(150))).toBe('a'.repeat(100));
    const s = slugify('a' + 'é'.repeat(60));
    expect(s.length).toBeLessThanOrEqual(100);
    expect(s).toMatch(/^a(%C3%A9)+$/);
  });
});

describe('source site name (4.3)', () => {
  it.each([
    ['https://www.youtube.com/watch?v=abc123xyz', 'YouTube'],
    ['https://m.youtube.com/x', 'YouTube'],
    ['https://youtu.be/x', 'YouTube'],
    ['https://GitHub.com/a/b', 'GitHub'],
    ['https://en.wikipedia.org/wiki/X', 'Wikipedia'],
    ['https://old.reddit.com/r/x', 'Reddit'],
    ['https://www.bbc.co.uk/news', 'BBC'],
    ['https://www.example.com:8443/x', 'example.com'],
    ['https://www.www.example.com/', 'www.example.com'],
    ['https://de.wikipedia.org/', 'de.wikipedia.org'],
  ])('%p → %p', (url, name) => {
    expect(sourceSiteName(url)).toBe(name);
  });
});

describe('word count (4.4)', () => {
  it('counts runs of word characters in the text content', () => {
    expect(countWords(renderMarkdown('Tell me *yours* please'))).toBe(4);
    expect(countWords(renderMarkdown('I use restic to an external drive. What do you use?'))).toBe(11);
    expect(countWords('<p>don&#39;t &amp; &quot;x&quot; &#x41;b</p>')).toBe(4);
    expect(countWords('<p>a<b>b</b></p>')).toBe(2);
    expect(countWords('')).toBe(0);
  });

  it('formats with U+202F groups from 10000 up', () => {
    expect(formatWordCount(1)).toBe('1 word');
    expect(formatWordCount(0)).toBe('0 words');
    expect(formatWordCount(9999)).toBe('9999 words');
    expect(formatWordCount(10000)).toBe('10\u202f000 words');
    expect(formatWordCount(1234567)).toBe('1\u202f234\u202f567 words');
    expect(contentMetadata(11)).toEqual(['11 words']);
    expect(contentMetadata(0)).toEqual([]);
    expect(contentMetadata(null)).toEqual([]);
  });
});

describe('markdown', () => {
  it('renders without raw HTML and without a trailing newline', () => {
    expect(renderMarkdown('I use restic to an external drive. What do you use?')).toBe(
      '<p>I use restic to an external drive. What do you use?</p>',
    );
    expect(renderMarkdown('<script>alert(1)</script>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(renderMarkdown('   ')).toBe('');
  });

  it('keeps only http, https and mailto links', () => {
    expect(renderMarkdown('[a](https://example.org/x)')).toContain('href="https://example.org/x"');
    expect(renderMarkdown('[a](mailto:x@example.org)')).toContain('href="mailto:x@example.org"');
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AA', 'vbscript:x', 'ftp://x', '/relative']) {
      expect(renderMarkdown(`[a](${bad}) ![i](${bad})`)).not.toContain('href=');
      expect(renderMarkdown(`![i](${bad})`)).not.toContain('<img');
    }
  });
});

describe('Python-style repr (2.3, 2.4)', () => {
  /** Python's `repr(json.loads(json))`, through the member function the login uses. */
  const reprJson = (json: string) => reprJsonMember(`{"v": ${json}}`, 'v');

  it('quotes strings like Python', () => {
    expect(reprString('foo')).toBe("'foo'");
    expect(reprString("it's")).toBe('"it\'s"');
    expect(reprString('say "hi"')).toBe('\'say "hi"\'');
    expect(reprString('it\'s "x"')).toBe("'it\\'s \"x\"'");
    expect(reprString('a\\b')).toBe("'a\\\\b'");
    expect(reprString('a\nb\rc\td')).toBe("'a\\nb\\rc\\td'");
    expect(reprString('\u0001\u00a0é\u200b')).toBe("'\\x01\\xa0é\\u200b'");
    expect(reprString('')).toBe("''");
  });

  it('writes JSON values as Python would', () => {
    expect(reprJson('123')).toBe('123');
    expect(reprJson('-5')).toBe('-5');
    expect(reprJson('-0')).toBe('0');
    expect(reprJson('1.5')).toBe('1.5');
    expect(reprJson('0.0001')).toBe('0.0001');
    expect(reprJson('0.00001')).toBe('1e-05');
    expect(reprJson('1e300')).toBe('1e+300');
    expect(reprJson('1e400')).toBe('inf');
    expect(reprJson('-1e400')).toBe('-inf');
    expect(reprJson('true')).toBe('True');
    expect(reprJson('false')).toBe('False');
    expect(reprJson('null')).toBe('None');
    expect(reprJson('[1, 2]')).toBe('[1, 2]');
    expect(reprJson('{"a":1}')).toBe("{'a': 1}");
    expect(reprJson('{"a": [true, null, "x"], "b": {}}')).toBe("{'a': [True, None, 'x'], 'b': {}}");
    expect(reprJson(' [ ] ')).toBe('[]');
    expect(reprJson('"a\\"b"')).toBe(`'a"b'`);
  });

  it('keeps what json.loads keeps: exact integers, floats that look integral, the last of a repeated key', () => {
    expect(reprJson('12345678901234567890123')).toBe('12345678901234567890123');
    expect(reprJson('1.0')).toBe('1.0');
    expect(reprJson('-0.0')).toBe('-0.0');
    expect(reprJson('1e5')).toBe('100000.0');
    expect(reprJson('1E16')).toBe('1e+16');
    expect(reprJson('123456789012345678.0')).toBe('1.2345678901234568e+17');
    expect(reprJson('{"a": 1, "b": 2, "a": 3}')).toBe("{'a': 3, 'b': 2}");
    expect(reprJsonMember('{"username": [1.0, {"k": 10000000000000000001}], "password": "x"}', 'username')).toBe(
      "[1.0, {'k': 10000000000000000001}]",
    );
  });

  it('writes values nested 30,000 levels deep (no recursion)', () => {
    const depth = 30_000;
    expect(reprJson('['.repeat(depth) + ']'.repeat(depth))).toBe('['.repeat(depth) + ']'.repeat(depth));
    const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    expect(reprJson(objects)).toBe("{'a': ".repeat(depth) + '1' + '}'.repeat(depth));
  });

  it('lists strings', () => {
    expect(reprList(['activity', 'votes'])).toBe("['activity', 'votes']");
  });
});

describe('visible text (titles and comments)', () => {
  it.each([
    ['spaces, tabs and newlines', ' \t\n\r '],
    ['zero-width space, joiners and word joiner', '\u200B\u200C\u200D\u2060'],
    ['bidirectional marks and isolates', '\u200E\u200F\u202E\u2066\u2069'],
    ['soft hyphen and BOM', '\u00AD\uFEFF'],
    ['no-break, ideographic and other spaces', '\u00A0\u3000\u2007\u205F\u2028\u2029'],
    ['controls', '\u0000\u0007\u001B\u007F\u0085'],
    ['Hangul fillers and the Braille blank', '\u115F\u1160\u3164\uFFA0\u2800'],
    ['variation selectors and the combining grapheme joiner', '\uFE0F\u034F\u{E0100}'],
    ['tag characters', '\u{E0041}\u{E007F}'],
  ])('%s only: nothing to see', (_name, text) => {
    expect(hasVisibleText(text)).toBe(false);
  });

  it.each([
    ['a letter among invisible characters', '\u200Bx\u200B'],
    ['an emoji', '👍'],
    ['an emoji sequence with joiners and a selector', '👩\u200D💻\uFE0F'],
    ['a keycap', '1\uFE0F\u20E3'],
    ['a flag', '🇫🇷'],
    ['punctuation', '?'],
    ['CJK and Arabic letters', '漢字 عربى'],
  ])('%s: visible', (_name, text) => {
    expect(hasVisibleText(text)).toBe(true);
  });
});
