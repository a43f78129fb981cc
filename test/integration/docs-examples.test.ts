/**
 * The README's examples run as written against a server with the demo data: its curl block (in a
 * fresh folder, so the `notes.txt` and `big.iso` it uploads must be made by its own steps), its
 * JavaScript snippets on Node (Apollo Client, possibleTypes, urql, tus-js-client, live updates), and
 * docs/files-api.md §4.9's curl-only resumable upload in two parts. The only changes: the address
 * (the test server's port for 4000), the variables a snippet takes from its surroundings (`token`,
 * `topicId`, `file`, …), declared before it, Apollo Client's import in the form the README gives for
 * Node (a front end's bundler takes the named import as written), and a time limit on each curl.
 *
 * Not run here: README's `## Docker` blocks (no Docker engine where the tests run;
 * test/unit/foundation/compose.test.ts checks that wiring), and its `npm ci && npm start` /
 * `npm ci && npm test` block, which is what CI (`.ci/run`) itself runs on a fresh clone.
 * docs/discussion-api.md §8 is replayed by test/integration/beta/examples.test.ts, docs/files-api.md §14
 * by test/integration/files/examples.test.ts; the commands the docs mention inline are checked by
 * docs-commands.test.ts.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/dist';
import { startTestServer, TestServer } from '../helpers/server';

jest.setTimeout(120_000);

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const filesApi = fs.readFileSync(path.join(ROOT, 'docs', 'files-api.md'), 'utf8');

/** The `n`th fenced block of `lang` after the line that starts with `heading` in `doc`. */
function block(heading: string, lang: string, n = 0, doc = readme): string {
  const at = doc.indexOf(`\n${heading}`);
  if (at < 0) throw new Error(`no line starts with ${heading}`);
  const blocks = [...doc.slice(at).matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))];
  return blocks[n]![1]!;
}

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

let s: TestServer;
let dir: string;
let token: string;
beforeAll(async () => {
  s = await startTestServer({ DEMO_SEED: 'true' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-readme-'));
  // The snippets import packages as an application would: from its node_modules.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const login = await fetch(`${s.url}/api/beta/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'alice', password: 'demo-password' }),
  });
  token = ((await login.json()) as { token: string }).token;
});
afterAll(async () => {
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const here = (code: string) => code.replaceAll('127.0.0.1:4000', new URL(s.url).host);
const NAMED_IMPORT = /^import \{ ([\w, ]+) \} from '@apollo\/client';$/m;
const NODE_FORM = "import apollo from '@apollo/client'; const { … } = apollo;";
const onNode = (code: string) => {
  expect(readme).toContain(
    `On Node, where\n\`@apollo/client\` 3 loads as CommonJS, write its import as \`${NODE_FORM}\``,
  );
  const names = NAMED_IMPORT.exec(code)?.[1];
  return names ? code.replace(NAMED_IMPORT, NODE_FORM.replace('…', names!)) : code;
};

/** Runs a command to its end without blocking the event loop: the server answering it runs in this process. */
function run(
  cmd: string,
  args: string[],
  cwd = dir,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

it('runs the curl examples in a fresh folder', async () => {
  // Each curl gives up after 20 s rather than hang the test.
  const script = here(block('### Examples', 'sh')).replaceAll('curl ', 'curl --max-time 20 ');
  const { status, stdout: out, stderr } = await run('bash', ['-euo', 'pipefail', '-c', script]);
  // curl -T shows its progress meter on stderr; an error would read `curl: (n) …`.
  expect(stderr).not.toMatch(/curl: \(/);
  expect(status).toBe(0);
  expect(out).toContain('{"data":{"topics":{"edges":[{"node":{"id":');
  expect(out).toContain('{"data":{"topic":{"title":"Which board games work well with two players?","threads":');
  expect(out).toMatch(/\{"topic":\{"id":"1",.*"comments":\[/);
  expect(out).toContain(`${s.url}/notes.txt\n`);
  expect(out).toMatch(/"delete_key":"\w+".*"filename":"notes[^"]*\.txt".*"size":"23"/);
  // The resumable upload ends with the JSON a PUT of the same bytes answers.
  const iso = await fs.promises.readFile(path.join(dir, 'big.iso'));
  expect(iso.length).toBe(3_000_000);
  expect(out).toContain('"filename":"big.iso"');
  expect(out).toContain(`"sha256sum":"${sha256(iso)}","size":"3000000"`);
  expect(out).not.toContain('"errors"');
});

/** Writes `size` bytes of noise: a random 1 MiB block over and over, so that writing it costs little. */
async function writeNoise(file: string, size: number): Promise<string> {
  const noise = crypto.randomBytes(1 << 20);
  const hash = crypto.createHash('sha256');
  function* parts() {
    for (let at = 0; at < size; at += noise.length) {
      const part = noise.subarray(0, Math.min(noise.length, size - at));
      hash.update(part);
      yield part;
    }
  }
  await fs.promises.writeFile(file, parts());
  return hash.digest('hex');
}

it("runs docs/files-api.md §4.9's curl-only resumable upload: 100,000,000 bytes, then the rest", async () => {
  // A fresh folder holding only the `big.iso` the block sends, a little over its first part. A 1 MiB block
  // repeated does not divide that part, so bytes resumed from a wrong offset change the digest.
  const folder = await fs.promises.mkdtemp(path.join(dir, 'resumable-'));
  const size = 100 * (1 << 20) + 12_345;
  const digest = await writeNoise(path.join(folder, 'big.iso'), size);
  const script = here(block('### 4.9', 'sh', 0, filesApi)).replaceAll('curl ', 'curl --max-time 60 ');
  expect(script).toContain('head -c 100000000 big.iso | curl');
  const { status, stdout: out, stderr } = await run('bash', ['-euo', 'pipefail', '-c', script], folder);
  expect(stderr).not.toMatch(/curl: \(/);
  expect(status).toBe(0);
  // The PATCHes answer 204 without a body: the output is the finished upload's JSON alone.
  expect(JSON.parse(out)).toMatchObject({
    filename: expect.stringMatching(/^big\d*\.iso$/),
    sha256sum: digest,
    size: String(size),
  });
});

async function runModule(
  name: string,
  code: string,
  until: RegExp,
  meanwhile?: () => Promise<void>,
  onOutput: (out: string) => void = () => {},
) {
  fs.writeFileSync(path.join(dir, name), code);
  const child = spawn(process.execPath, [name], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const add = (c: Buffer) => onOutput((out += c.toString()));
  child.stdout.on('data', add);
  child.stderr.on('data', add);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    if (meanwhile) await meanwhile();
    for (let i = 0; i < 300 && !until.test(out) && child.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 100));
    return out;
  } finally {
    child.kill();
    await exited;
  }
}

it('runs the Apollo Client snippet on Node: the reply is posted and lands in the cache', async () => {
  const given = `const token = ${JSON.stringify(token)};\nconst topicId = '1';\nconst parentId = null;\n`;
  // What the update callback reads: a query of the cached tree, and how a reply goes into it.
  const app =
    'const TREE = gql`query($id: ID!) { topic(id: $id) { id threads { nodes { depth comment { id } } } } }`;\n' +
    'const insertUnder = (old) => old;\n';
  const [importLine, ...rest] = onNode(here(block('**Apollo Client**', 'js'))).split('\n');
  const snippet = [importLine, app, ...rest].join('\n');
  const out = await runModule('apollo.mjs', `${given}${snippet}\nconsole.log('posted');\n`, /posted|Error/);
  expect(out).toBe('posted\n');
});

it('runs the possibleTypes snippet on Node', async () => {
  const preamble = onNode("import { InMemoryCache } from '@apollo/client';\n");
  const snippet = here(block('**Apollo Client**', 'js', 1));
  const out = await runModule(
    'possible-types.mjs',
    `${preamble}${snippet}\nconsole.log(JSON.stringify(possibleTypes.Node));\n`,
    /\]|Error/,
  );
  expect(JSON.parse(out)).toEqual(expect.arrayContaining(['Topic', 'Comment', 'User', 'Group', 'FileInfo']));
});

it('runs the urql snippet on Node: a topic tree goes through graphcache without a warning', async () => {
  const given = `const token = ${JSON.stringify(token)};\n`;
  const snippet = here(block('**urql with graphcache**', 'js'));
  // A read through the client the snippet makes: graphcache would warn (on stderr) of threads without keys.
  const use =
    "const r = await client.query('query($id: ID!) { topic(id: $id) { id title threads(first: 3) " +
    "{ nodes { depth comment { id } } } } }', { id: '1' }).toPromise();\n" +
    'console.log(JSON.stringify({ error: r.error?.message, topic: r.data?.topic }));\n';
  const out = await runModule('urql.mjs', `${given}${snippet}\n${use}`, /\n/);
  const { error, topic } = JSON.parse(out);
  expect(error).toBeUndefined();
  expect(topic.title).toBe('Which board games work well with two players?');
  expect(topic.threads.nodes.length).toBeGreaterThan(0);
  expect(out.split('\n')).toHaveLength(2);
});

// `file` in both forms the snippet's comment gives for Node, from a folder holding big.iso.
it.each([
  ['a ReadStream', "import fs from 'node:fs';\nconst file = fs.createReadStream('big.iso');\n"],
  ['a Buffer', "import fs from 'node:fs';\nconst file = fs.readFileSync('big.iso');\n"],
])(
  'runs the tus-js-client snippet on Node with %s: the finished upload answers what PUT /upload would',
  async (_, given) => {
    const snippet = here(block('The same with [tus-js-client]', 'js'));
    expect(snippet).toContain("on Node a Buffer or fs.createReadStream('big.iso')");
    const bytes = crypto.randomBytes(3_000_000);
    await fs.promises.writeFile(path.join(dir, 'big.iso'), bytes);
    const before = Math.floor(Date.now() / 1000);
    // It prints the answer's JSON as Node's console shows an object, closed by `}` on a line of its own.
    const out = await runModule('tus.mjs', `${given}${snippet}`, /^\}$|Error/m);
    const after = Math.floor(Date.now() / 1000);
    expect(out).toMatch(/^\{\n/);
    expect(out).toMatch(/^ {2}filename: 'big\d*\.iso',$/m);
    expect(out).toContain(`  sha256sum: '${sha256(bytes)}',\n  size: '3000000',\n`);
    // Files-Expiry: 86400 went with the creation.
    const expiry = Number(/^ {2}expiry: '(\d+)',$/m.exec(out)?.[1]);
    expect(expiry).toBeGreaterThanOrEqual(before + 86400);
    expect(expiry).toBeLessThanOrEqual(after + 86400);
  },
);

it('runs the live-updates snippet on Node: a comment posted meanwhile arrives', async () => {
  const snippet = here(block('## Live updates', 'js'));
  const preamble = `const token = ${JSON.stringify(token)};\n`;
  // Comments posted every 2 s until one arrives: the first may come before the subscription starts.
  let out = '';
  const post = async () => {
    for (let i = 0; i < 15 && !/COMMENT_POSTED|Error/.test(out); i++) {
      await new Promise((r) => setTimeout(r, 2000));
      const r = await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query: 'mutation { postComment(topicId: "1", markdown: "From the README test") { depth } }',
        }),
      });
      expect(r.status).toBe(200);
    }
  };
  await runModule('live.mjs', preamble + snippet, /COMMENT_POSTED|Error/, post, (o) => (out = o));
  expect(out).toMatch(/kind: 'COMMENT_POSTED'/);
  expect(out).toContain('From the README test');
});
