/**
 * Agora's patch series for FerretDB (third_party/ferretdb/, described in its README.md): the unified
 * diffs listed in `series`, applied in order to FerretDB's module source, and the files under
 * `files/`, added at the same paths. Used by the build (ferretdb-build.ts) and by the Go checks
 * (scripts/ferretdb-check.js), so that what is tested is what is built.
 *
 * The applier is strict on purpose: every hunk must match the source exactly at the line it names
 * (no fuzz, no offsets), and an added file may not replace one of FerretDB's. Anything else means
 * the source is not the one the series was written for, and the build stops rather than compile a
 * half-patched FerretDB.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The series' folder: two levels above this file, from src/db as from dist/db. */
export const SERIES_DIR = path.resolve(__dirname, '..', '..', 'third_party', 'ferretdb');

export interface Series {
  /** Patch file names, in the order they apply. */
  patches: string[];
  /** Files added to the tree, relative to `files/` (and to the module root), sorted. */
  files: string[];
}

export function readSeries(dir: string = SERIES_DIR): Series {
  const listed = fs.readFileSync(path.join(dir, 'series'), 'utf8').split('\n');
  const patches = listed.map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
  return { patches, files: listFiles(path.join(dir, 'files')).sort() };
}

/**
 * Names a build: a hash of FerretDB's version, every patch and every added file that goes into the
 * binary. Go test files are left out (they are never compiled into it), so editing a test does not
 * cost a rebuild; any other change to the series gives a new name, and so a new build.
 */
export function seriesBuildId(version: string, dir: string = SERIES_DIR): string {
  const { patches, files } = readSeries(dir);
  const hash = crypto.createHash('sha256').update(`FerretDB ${version}\n`);
  for (const p of patches) hash.update(`patch ${p}\n`).update(fs.readFileSync(path.join(dir, 'patches', p)));
  for (const f of files.filter((f) => !f.endsWith('_test.go'))) {
    hash.update(`\nfile ${f}\n`).update(fs.readFileSync(path.join(dir, 'files', f)));
  }
  return hash.digest('hex').slice(0, 12);
}

/** Applies the series to a writable copy of the module source at `src`; returns the paths it touched. */
export function applySeries(src: string, dir: string = SERIES_DIR): { patched: string[]; added: string[] } {
  const { patches, files } = readSeries(dir);
  const patched = new Set<string>();
  for (const name of patches) {
    for (const filePatch of parsePatch(fs.readFileSync(path.join(dir, 'patches', name), 'utf8'), name)) {
      const file = path.join(src, filePatch.path);
      if (!fs.existsSync(file)) throw new Error(`FerretDB patch ${name}: ${filePatch.path} does not exist`);
      fs.writeFileSync(file, applyFilePatch(fs.readFileSync(file, 'utf8'), filePatch, name));
      patched.add(filePatch.path);
    }
  }
  for (const f of files) {
    const to = path.join(src, f);
    if (fs.existsSync(to)) {
      throw new Error(`FerretDB series: files/${f} would replace FerretDB's own ${f}; change it with a patch`);
    }
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(dir, 'files', f), to);
  }
  return { patched: [...patched], added: files };
}

interface Hunk {
  oldStart: number;
  oldLines: string[];
  newLines: string[];
  header: string;
}

interface FilePatch {
  path: string;
  hunks: Hunk[];
}

/** Parses a unified diff (`diff -u`, `git diff`) of existing files. */
export function parsePatch(text: string, name: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: FilePatch[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`FerretDB patch ${name}, line ${i + 1}: ${why}`);
  };
  while (i < lines.length) {
    if (!lines[i].startsWith('--- ')) {
      i += 1; // a comment or a `diff …` line between files
      continue;
    }
    const from = lines[i].slice(4).split('\t')[0];
    const to = (lines[i + 1] ?? '').startsWith('+++ ') ? lines[i + 1].slice(4).split('\t')[0] : fail('no +++ line');
    if (from === '/dev/null' || to === '/dev/null') {
      fail('files are added under files/, never by a patch, and never deleted');
    }
    if (from.replace(/^a\//, '') !== to.replace(/^b\//, '')) fail(`renames are not supported (${from} -> ${to})`);
    const file: FilePatch = { path: to.replace(/^b\//, ''), hunks: [] };
    i += 2;
    while (i < lines.length && lines[i].startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]);
      if (!m) fail(`malformed hunk header ${JSON.stringify(lines[i])}`);
      const hunk: Hunk = { oldStart: Number(m![1]), oldLines: [], newLines: [], header: lines[i] };
      let oldLeft = m![2] === undefined ? 1 : Number(m![2]);
      let newLeft = m![4] === undefined ? 1 : Number(m![4]);
      i += 1;
      while (oldLeft > 0 || newLeft > 0) {
        const line = lines[i];
        if (line === undefined) fail('the patch ends inside a hunk');
        const body = line.slice(1);
        if (line.startsWith(' ') || line === '') {
          hunk.oldLines.push(body);
          hunk.newLines.push(body);
          oldLeft -= 1;
          newLeft -= 1;
        } else if (line.startsWith('-')) {
          hunk.oldLines.push(body);
          oldLeft -= 1;
        } else if (line.startsWith('+')) {
          hunk.newLines.push(body);
          newLeft -= 1;
        } else if (line.startsWith('\\')) {
          fail('"No newline at end of file" is not supported');
        } else {
          fail(`unexpected line in hunk ${JSON.stringify(line)}`);
        }
        if (oldLeft < 0 || newLeft < 0) fail('a hunk is longer than its header says');
        i += 1;
      }
      file.hunks.push(hunk);
    }
    if (file.hunks.length === 0) fail(`no hunks for ${file.path}`);
    out.push(file);
  }
  if (out.length === 0) throw new Error(`FerretDB patch ${name}: no file changes in it`);
  return out;
}

/** Applies one file's hunks, each exactly at the line it names. */
export function applyFilePatch(source: string, patch: FilePatch, name: string): string {
  const lines = source.split('\n');
  const out: string[] = [];
  let at = 0; // next unconsumed line of the original, 0-based
  for (const hunk of patch.hunks) {
    const start = hunk.oldLines.length === 0 ? hunk.oldStart : hunk.oldStart - 1;
    const matches = start >= at && hunk.oldLines.every((l, k) => lines[start + k] === l);
    if (!matches) {
      const where = `${patch.path} at ${hunk.header}`;
      throw new Error(`FerretDB source not as expected: patch ${name} does not apply to ${where}`);
    }
    out.push(...lines.slice(at, start), ...hunk.newLines);
    at = start + hunk.oldLines.length;
  }
  out.push(...lines.slice(at));
  return out.join('\n');
}

function listFiles(root: string, rel = ''): string[] {
  if (!fs.existsSync(path.join(root, rel))) return [];
  return fs.readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? listFiles(root, p) : [p];
  });
}
