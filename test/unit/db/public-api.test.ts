/**
 * No module reaches past a library's public API (issue 41): nothing requires the MongoDB driver's
 * internal modules, and no library class or storage is patched at run time (an assignment to a
 * `.prototype` member, or to a method of class-validator's or type-graphql's metadata storage).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '../../../src');

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
    );
}

const files = sources(root).map((file) => ({ file: path.relative(root, file), text: fs.readFileSync(file, 'utf8') }));

describe('public library APIs only', () => {
  it('reads the source tree', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it("no module loads the MongoDB driver's internal modules", () => {
    const offenders = files.filter(({ text }) => /mongodb\/lib\b/.test(text)).map((f) => f.file);
    expect(offenders).toEqual([]);
  });

  it('no module assigns to a prototype', () => {
    const offenders = files.filter(({ text }) => /\.prototype(\.\w+|\[[^\]]+\])\s*=[^=]/.test(text)).map((f) => f.file);
    expect(offenders).toEqual([]);
  });

  it('no module replaces a method of a metadata storage', () => {
    const offenders = files
      .filter(({ text }) => {
        // The names a module gives to a library's metadata storage, and getMetadataStorage() itself.
        const names = [...text.matchAll(/(\w+)\s*=\s*getMetadataStorage\(\)/g)].map((m) => m[1]!);
        return [...names, 'getMetadataStorage\\(\\)'].some((name) =>
          new RegExp(`(?<![\\w.])${name}\\.\\w+\\s*=[^=]`).test(text),
        );
      })
      .map((f) => f.file);
    expect(offenders).toEqual([]);
  });
});
