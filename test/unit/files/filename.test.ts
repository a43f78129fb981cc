/** docs/files-api.md §4.5 (the whole table) and the collision rule of §4.6. */
import {
  computeName,
  isReservedName,
  MAX_FILENAME_LENGTH,
  nextBare,
  randomBare,
  splitRequestedName,
} from '../../../src/files/filename';

const RAND = /^[a-z0-9]{8}$/;
const TEXT = 'txt';
const PNG = 'png';
const BINARY = 'file';

describe('§4.5 filename table', () => {
  // [requested, detected extension of the body, expected] — `<rand>` stands for 8 random [a-z0-9].
  const table: [string, string, string][] = [
    ['', TEXT, '<rand>.txt'],
    ['', PNG, '<rand>.png'],
    ['test.jpg.gz', TEXT, 'testjpg.gz'],
    ['noext', TEXT, 'noext.txt'],
    ['under_score-dash.Md', TEXT, 'underscore-dash.md'],
    ['txt', TEXT, 'txt.txt'],
    ['FOO.TAR.GZ', TEXT, 'foo.tar.gz'],
    ['a.b.c', TEXT, 'ab.c'],
    ['a b .t xt', TEXT, 'ab.txt'],
    ['my.file.JPG', TEXT, 'myfile.jpg'],
    ['.tar.gz', TEXT, '<rand>.tar.gz'],
    ['graphql', TEXT, 'graphql.txt'],
    ['My File (1).TXT', TEXT, 'myfile1.txt'],
    ['test.tar.gz', TEXT, 'test.tar.gz'],
    ['.hidden', TEXT, '<rand>.hidden'],
    ['binthing', BINARY, 'binthing.file'],
    ['héllo.txt', TEXT, 'hllo.txt'],
    ['foo.', TEXT, 'foo.txt'],
    ['x.a-b', TEXT, 'x.a-b'],
    ['bar.tar.zip', TEXT, 'bartar.zip'],
    ['dot..txt', TEXT, 'dot.txt'],
    ['abc.✓', TEXT, 'abc.txt'],
    ['UPPER', TEXT, 'upper.txt'],
    ['---', TEXT, '<rand>.txt'],
    ['../../etc/passwd', TEXT, 'etcpasswd.txt'],
  ];

  it.each(table)('%j (body → .%s) → %s', (requested, detected, expected) => {
    const { name } = computeName(requested, false, detected);
    if (expected.startsWith('<rand>')) {
      const ext = expected.slice('<rand>.'.length);
      expect(name.endsWith(`.${ext}`)).toBe(true);
      expect(name.slice(0, -(ext.length + 1))).toMatch(RAND);
    } else expect(name).toBe(expected);
  });

  it('randomize keeps the extension: keepext.png → <rand>.png', () => {
    const { name, random } = computeName('keepext.png', true, TEXT);
    expect(random).toBe(true);
    expect(name).toMatch(/^[a-z0-9]{8}\.png$/);
  });

  it('every computed name contains a dot', () => {
    for (const r of ['', 'a', '.', '...', 'x.', '.y', '✓', ' '])
      expect(computeName(r, false, TEXT).name).toContain('.');
  });

  it('index.html and robots.txt are reserved (the caller answers 400 Prohibited filename)', () => {
    expect(isReservedName(computeName('index.html', false, TEXT).name)).toBe(true);
    expect(isReservedName(computeName('robots.txt', false, TEXT).name)).toBe(true);
    for (const n of ['favicon.ico', 'index.htm', 'index.php', 'crossdomain.xml', 'INDEX.HTML'])
      expect(isReservedName(n)).toBe(true);
    expect(isReservedName('graphql.txt')).toBe(false);
  });

  it('a reserved random name is redrawn', () => {
    let calls = 0;
    const { name } = computeName('', true, TEXT, () => ++calls < 3);
    expect(calls).toBe(3);
    expect(name).toMatch(/^[a-z0-9]{8}\.txt$/);
  });

  it('300 × a + .txt is longer than the limit', () => {
    expect(computeName(`${'a'.repeat(300)}.txt`, false, TEXT).name.length).toBeGreaterThan(MAX_FILENAME_LENGTH);
  });

  it('splits off .tar only before .gz, .bz2 and .xz', () => {
    expect(splitRequestedName('a.tar.bz2')).toEqual({ bare: 'a', ext: 'tar.bz2' });
    expect(splitRequestedName('a.tar.xz')).toEqual({ bare: 'a', ext: 'tar.xz' });
    expect(splitRequestedName('a.tar.zst')).toEqual({ bare: 'atar', ext: 'zst' });
  });

  it('random bares are 8 characters of [a-z0-9], well spread', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const b = randomBare();
      expect(b).toMatch(RAND);
      for (const c of b) seen.add(c);
    }
    expect(seen.size).toBe(36);
  });
});

describe('§4.6 collision suffix', () => {
  const chain = (bare: string, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push((bare = nextBare(bare)));
    return out;
  };
  it('hello → hello1 → hello2', () => expect(chain('hello', 2)).toEqual(['hello1', 'hello2']));
  it('file9 → file10 → file11', () => expect(chain('file9', 2)).toEqual(['file10', 'file11']));
  it('v19 → v110', () => expect(chain('v19', 1)).toEqual(['v110']));
  it('ow → ow1', () => expect(chain('ow', 1)).toEqual(['ow1']));
});
