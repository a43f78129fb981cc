/**
 * What the docs (README.md, SECURITY.md, bench/README.md, docs/*.md) mention inline names something that
 * exists, so a reader on a fresh clone is never sent to a script, command or file that is gone:
 * - every `npm run <script>` (and `npm start`, `npm test`) a script of package.json;
 * - every `npm run cli -- <command>` (or `node dist/cli/main.js <command>`) a command `help` lists, with
 *   only the options its usage gives, and README's command-line table exactly those commands' usages;
 * - every `npm run bench -- <group>` a group of bench/run.js;
 * - every `node [flags] <path>.js` a file of the repository (`dist/X.js`: `src/X.ts`, which the build
 *   compiles), and every path under one of the repository's folders a file or folder that is there.
 * They are not run here: the blocks that can run on this machine are run by docs-examples.test.ts.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DIST_CLI, ensureBuilt, ROOT } from '../helpers/dist';

jest.setTimeout(120_000);

const DOCS = [
  'README.md',
  'SECURITY.md',
  'bench/README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const text = new Map(DOCS.map((d) => [d, fs.readFileSync(path.join(ROOT, d), 'utf8')]));

/** Every match of `re` (global) in every doc, as `[doc, match]`. */
function mentions(re: RegExp): [string, RegExpMatchArray][] {
  return DOCS.flatMap((d) => [...text.get(d)!.matchAll(re)].map((m) => [d, m] as [string, RegExpMatchArray]));
}

const exists = (p: string) => fs.existsSync(path.join(ROOT, p));

/** Whether a path with `*` in its last part matches an entry of its folder. */
function globExists(p: string): boolean {
  const dir = path.dirname(p);
  const literal = path.basename(p).replace(/[.+?^$()|[\]\\{}]/g, '\\$&');
  const name = new RegExp(`^${literal.replaceAll('*', '.*')}$`);
  return exists(dir) && fs.readdirSync(path.join(ROOT, dir)).some((f) => name.test(f));
}

it('names only scripts of package.json after `npm run`, `npm start` and `npm test`', () => {
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: object }).scripts;
  const named = [...mentions(/\bnpm run ([a-z][\w:.-]*)/g), ...mentions(/\bnpm (start|test)\b/g)];
  expect(named.length).toBeGreaterThan(20);
  const stale = named.filter(([, m]) => !Object.hasOwn(scripts, m[1]!)).map(([d, m]) => `${d}: ${m[0]}`);
  expect(stale).toEqual([]);
});

describe('the command line', () => {
  /** Each command's usage, as `npm run cli -- help` prints it. */
  const usages = new Map<string, string>();
  beforeAll(async () => {
    ensureBuilt();
    const { stdout } = await promisify(execFile)(process.execPath, [DIST_CLI, 'help'], { cwd: ROOT });
    // `  <usage, single spaces>  <summary>` under `Commands:`.
    for (const m of stdout.matchAll(/^ {2}(\S+(?: \S+)*) {2,}\S/gm)) usages.set(m[1]!.split(' ')[0]!, m[1]!);
  });

  it('knows every command the docs name after `npm run cli --`, with the options they give', () => {
    expect(usages.size).toBeGreaterThan(5);
    const named = mentions(/(?:\bnpm run cli --|\bnode dist\/cli\/main\.js) ([^`\n|)]+)/g);
    expect(named.length).toBeGreaterThan(5);
    const stale: string[] = [];
    for (const [doc, m] of named) {
      const [command, ...rest] = m[1]!.trim().split(/\s+/);
      // `npm run cli -- …` and `-- <command>` stand for any command.
      if (command === '…' || command!.startsWith('<')) continue;
      const usage = command === 'help' ? 'help' : usages.get(command!);
      const options = rest.join(' ').match(/--[\w-]+/g) ?? [];
      const unknown = options.filter((o) => !new RegExp(`${o}(?![\\w-])`).test(usage ?? ''));
      if (!usage || unknown.length > 0) stale.push(`${doc}: ${m[0]}`);
    }
    expect(stale).toEqual([]);
  });

  it("README's table lists every command, by its usage", () => {
    const readme = text.get('README.md')!;
    const section = readme.slice(readme.indexOf('\n## Command line\n'), readme.indexOf('\n## Performance\n'));
    const listed = section
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split(' | ')[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(listed.sort()).toEqual([...usages.values()].sort());
  });
});

it('names only groups of bench/run.js after `npm run bench --`', () => {
  const run = fs.readFileSync(path.join(ROOT, 'bench', 'run.js'), 'utf8');
  const available = /^const available = \{(.*)\};$/m.exec(run)?.[1] ?? '';
  const groups = [...available.matchAll(/(\w+): /g)].map((m) => m[1]);
  expect(groups).toEqual(expect.arrayContaining(['api', 'files']));
  const named = mentions(/\bnpm run bench -- ([\w-]+)/g);
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter(([, m]) => !groups.includes(m[1])).map(([d, m]) => `${d}: ${m[0]}`)).toEqual([]);
});

it('names only files that are there after `node`', () => {
  const named = mentions(/\bnode(?: --?[\w-]+(?:=\S+)?)* ((?:[\w.-]+\/)+[\w.-]+\.(?:js|mjs|cjs))\b/g);
  expect(named.length).toBeGreaterThan(10);
  const stale = named
    .filter(([, m]) => !exists(m[1]!.replace(/^dist\/(.*)\.js$/, 'src/$1.ts')))
    .map(([d, m]) => `${d}: ${m[0]}`);
  expect(stale).toEqual([]);
});

it("names only paths that are there under the repository's folders", () => {
  const named = mentions(/(?<![\w./-])((?:src|test|bench|scripts|docs|native|third_party|\.ci)\/[\w./*-]*[\w*])/g);
  expect(named.length).toBeGreaterThan(50);
  const stale = named
    .filter(([, m]) => !(m[1]!.includes('*') ? globExists(m[1]!) : exists(m[1]!)))
    .map(([d, m]) => `${d}: ${m[1]}`);
  expect(stale).toEqual([]);
});
