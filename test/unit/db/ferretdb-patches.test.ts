/**
 * The patch series applier (src/db/ferretdb-patches.ts): strict, so that a series written for
 * another FerretDB source stops the build; and the build id, which must change with anything that
 * goes into the binary. Runs on copies of the real series in temporary folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  applyFilePatch,
  applySeries,
  parsePatch,
  readSeries,
  SERIES_DIR,
  seriesBuildId,
} from '../../../src/db/ferretdb-patches';

const source = ['package x', '', 'func a() int {', '\treturn 1', '}', '', 'func b() int {', '\treturn 2', '}', ''].join(
  '\n',
);
const patch = `Subject: a test patch

--- a/x.go
+++ b/x.go
@@ -3,3 +3,4 @@
 func a() int {
-\treturn 1
+\t// changed
+\treturn 10
 }
@@ -8,1 +9,1 @@
-\treturn 2
+\treturn 20
`;

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-series-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('applying a patch', () => {
  it('applies every hunk at the line it names, text before the first file being a description', () => {
    const [file] = parsePatch(patch, 'test.patch');
    expect(file.path).toBe('x.go');
    expect(applyFilePatch(source, file, 'test.patch')).toBe(
      source.replace('\treturn 1', '\t// changed\n\treturn 10').replace('\treturn 2', '\treturn 20'),
    );
  });

  it('refuses a source whose lines moved (no offsets, no fuzz)', () => {
    const [file] = parsePatch(patch, 'test.patch');
    expect(() => applyFilePatch(`// one more line\n${source}`, file, 'test.patch')).toThrow(
      /does not apply to x.go at @@ -3,3/,
    );
  });

  it('refuses a source whose lines differ', () => {
    const [file] = parsePatch(patch, 'test.patch');
    expect(() => applyFilePatch(source.replace('return 2', 'return 3'), file, 'test.patch')).toThrow(
      /does not apply to x.go at @@ -8,1/,
    );
  });

  it('refuses malformed patches and patches that add, delete or rename files', () => {
    expect(() => parsePatch('nothing here\n', 'p')).toThrow(/no file changes/);
    expect(() => parsePatch(patch.replace('@@ -3,3 +3,4 @@', '@@ -3,3 +3,5 @@'), 'p')).toThrow(/hunk/);
    expect(() => parsePatch('--- /dev/null\n+++ b/new.go\n@@ -0,0 +1 @@\n+x\n', 'p')).toThrow(/never by a patch/);
    expect(() => parsePatch('--- a/x.go\n+++ b/y.go\n@@ -1 +1 @@\n-a\n+b\n', 'p')).toThrow(/renames/);
  });
});

describe('the series', () => {
  const copy = () => {
    const dir = path.join(tmp, 'series');
    fs.cpSync(SERIES_DIR, dir, { recursive: true });
    return dir;
  };

  it('lists its patches in order and its added files, tests included', () => {
    const { patches, files } = readSeries();
    expect(patches.length).toBeGreaterThan(0);
    expect([...patches].sort()).toEqual(patches);
    expect(files).toContain('internal/handler/sjson/agora_decode.go');
    expect(files).toContain('internal/handler/sjson/agora_decode_test.go');
  });

  it('changes its build id with any patch or added file, but not with a Go test', () => {
    const dir = copy();
    const id = seriesBuildId('v1.24.2', dir);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(seriesBuildId('v1.24.2', dir)).toBe(id);
    expect(seriesBuildId('v1.24.3', dir)).not.toBe(id);

    const { patches } = readSeries(dir);
    const first = path.join(dir, 'patches', patches[0]);
    fs.appendFileSync(first, ' \n');
    expect(seriesBuildId('v1.24.2', dir)).not.toBe(id);
    fs.writeFileSync(first, fs.readFileSync(path.join(SERIES_DIR, 'patches', patches[0])));
    expect(seriesBuildId('v1.24.2', dir)).toBe(id);

    fs.appendFileSync(path.join(dir, 'files/internal/handler/sjson/agora_decode.go'), '\n');
    expect(seriesBuildId('v1.24.2', dir)).not.toBe(id);
    fs.copyFileSync(
      path.join(SERIES_DIR, 'files/internal/handler/sjson/agora_decode.go'),
      path.join(dir, 'files/internal/handler/sjson/agora_decode.go'),
    );

    fs.appendFileSync(path.join(dir, 'files/internal/handler/sjson/agora_decode_test.go'), '\n');
    expect(seriesBuildId('v1.24.2', dir)).toBe(id);

    fs.writeFileSync(path.join(dir, 'series'), [...patches].reverse().join('\n'));
    expect(seriesBuildId('v1.24.2', dir)).not.toBe(id);
  });

  it('applies to a tree, and refuses to replace one of its files with an added one', () => {
    const dir = copy();
    const tree = path.join(tmp, 'tree');
    const { patches, files } = readSeries(dir);
    // The real patches need FerretDB's source (the build and scripts/ferretdb-check.js apply them);
    // here the series' own added files go beside a patch of this test.
    fs.mkdirSync(tree);
    fs.writeFileSync(path.join(tree, 'x.go'), source);
    fs.writeFileSync(path.join(dir, 'series'), 'test.patch\n');
    fs.writeFileSync(path.join(dir, 'patches', 'test.patch'), patch);
    for (const p of patches) fs.rmSync(path.join(dir, 'patches', p));
    const result = applySeries(tree, dir);
    expect(result.patched).toEqual(['x.go']);
    expect(result.added).toEqual(files);
    expect(fs.readFileSync(path.join(tree, 'x.go'), 'utf8')).toContain('return 20');
    expect(fs.existsSync(path.join(tree, files[0]))).toBe(true);

    fs.writeFileSync(path.join(tree, 'x.go'), source);
    expect(() => applySeries(tree, dir)).toThrow(/would replace FerretDB's own/);
  });
});
