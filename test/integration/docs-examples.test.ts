/**
 * The README's examples run as written against a server with the demo data: its curl block (in a
 * fresh folder, so the `notes.txt` it uploads must be made by its own steps), and its JavaScript
 * snippets on Node (Apollo Client, possibleTypes, live updates). The only changes: the address
 * (the test server's port for 4000), the variables a snippet takes from its surroundings
 * (`token`, `topicId`, …), declared before it, and Apollo Client's import in the form the README
 * gives for Node (a front end's bundler takes the named import as written).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/dist';
import { startTestServer, TestServer } from '../helpers/server';

jest.setTimeout(120_000);

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The `n`th fenced block of `lang` after the line that starts with `heading`. */
function block(heading: string, lang: string, n = 0): string {
  const at = readme.indexOf(`\n${heading}`);
  if (at < 0) throw new Error(`README has no heading ${heading}`);
  const blocks = [...readme.slice(at).matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))];
  return blocks[n]![1]!;
}

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
function run(cmd: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
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
  expect(out).not.toContain('"errors"');
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
