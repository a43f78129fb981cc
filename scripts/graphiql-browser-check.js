#!/usr/bin/env node
/**
 * Checks GraphiQL the way a newcomer uses it, in headless Chromium with every non-loopback host
 * unresolvable (so nothing can load from a CDN): runs each example tab, then logs in, pastes the
 * token into the Authorization header and posts a comment. A tab passes when its answer has data
 * (or only asks for a token, which it then gets); an empty answer fails, and the subscription tab
 * passes only when a comment posted meanwhile arrives in it. Screenshots go to the output folder;
 * Chromium's profile is a temporary folder, removed at the end.
 *
 *   node --experimental-websocket scripts/graphiql-browser-check.js [http://127.0.0.1:4000] [out-dir]
 *
 * Needs Debian's chromium (`apt-get install chromium`) and a server with the demo data.
 * Not part of `npm test`: a fresh machine has no browser.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const base = process.argv[2] ?? 'http://127.0.0.1:4000';
const outDir = process.argv[3] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'graphiql-check-'));
fs.mkdirSync(outDir, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const port = 9300 + Math.floor(Math.random() * 500);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'graphiql-check-chromium-'));
  const chrome = spawn(
    'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      `--remote-debugging-port=${port}`,
      'about:blank',
    ],
    // Its temporary files (a singleton socket folder) go into the profile too.
    { stdio: 'ignore', env: { ...process.env, TMPDIR: profile } },
  );
  const chromeExited = new Promise((resolve) => chrome.on('exit', resolve));
  try {
    let targets;
    for (let i = 0; i < 50 && !targets; i++) {
      await sleep(200);
      targets = await fetch(`http://127.0.0.1:${port}/json`).then(
        (r) => r.json(),
        () => undefined,
      );
    }
    const ws = new WebSocket(targets.find((t) => t.type === 'page').webSocketDebuggerUrl);
    await new Promise((r) => (ws.onopen = r));
    let id = 0;
    const pending = new Map();
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.id && pending.has(m.id)) {
        pending.get(m.id)(m.result ?? m);
        pending.delete(m.id);
      }
    };
    const send = (method, params = {}) =>
      new Promise((res) => {
        const i = ++id;
        pending.set(i, res);
        ws.send(JSON.stringify({ id: i, method, params }));
      });
    const js = async (expression) =>
      (await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })).result?.value;
    const shot = async (name) =>
      fs.writeFileSync(
        path.join(outDir, `${name}.png`),
        Buffer.from((await send('Page.captureScreenshot', { format: 'png' })).data, 'base64'),
      );
    const openTab = (i) => js(`document.querySelectorAll('.graphiql-tab')[${i}].querySelector('button').click()`);
    const response = () => js(`document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()`);
    const run = async () => {
      await js(`document.querySelector('.graphiql-execute-button').click()`);
      await sleep(2500);
      return response();
    };
    const gql = async (query, variables, auth) =>
      (
        await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
          body: JSON.stringify({ query, variables }),
        })
      ).json();
    const isSubscription = () =>
      js(
        `/^\\s*subscription\\b/m.test(` +
          `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue())`,
      );
    // A subscription answers nothing until something happens: post a comment in topic 1 while it runs.
    const runSubscription = async () => {
      await js(`document.querySelector('.graphiql-execute-button').click()`);
      await sleep(2000);
      if (!token) {
        const login = 'mutation { login(username: "alice", password: "demo-password") { token } }';
        token = (await gql(login)).data?.login?.token;
      }
      const post = 'mutation($t: ID!, $m: String!) { postComment(topicId: $t, markdown: $m) { comment { id } } }';
      await gql(post, { t: '1', m: `Posted by the GraphiQL check at ${new Date().toISOString()}` }, token);
      let text = '';
      for (let i = 0; i < 20 && !text; i++) {
        await sleep(500);
        text = await response();
      }
      await js(`document.querySelector('.graphiql-execute-button').click()`); // stops it
      return text;
    };

    await send('Page.enable');
    await send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 900, deviceScaleFactor: 1, mobile: false });
    await send('Page.navigate', { url: `${base}/graphiql` });
    await sleep(4000);
    const names = await js(
      `[...document.querySelectorAll('.graphiql-tab')].map((t) => t.querySelector('button').textContent.trim())`,
    );
    let failures = 0;
    let token;
    for (let i = 0; i < names.length; i++) {
      await openTab(i);
      await sleep(600);
      const subscription = await isSubscription();
      const text = subscription ? await runSubscription() : await run();
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = {};
      }
      if (body.data?.login?.token) token = body.data.login.token;
      const needsToken = body.errors?.every((e) => e.extensions?.code === 'UNAUTHENTICATED');
      // Only an answer with data passes: an empty pane (nothing came) is a failure.
      const hasData = body.data != null && Object.values(body.data).some((v) => v != null);
      const said = body.errors
        ? `errors (${body.errors.map((e) => e.extensions?.code).join(', ')})`
        : hasData
          ? 'data'
          : `no answer${text ? `: ${text.slice(0, 80)}` : ''}`;
      console.log(`${names[i]}${subscription ? ' (subscription, a comment posted meanwhile)' : ''}: ${said}`);
      if (needsToken ? false : body.errors || !hasData) failures += 1;
      await shot(`tab-${i}`);
      if (needsToken && token) {
        const headerTemplate = JSON.stringify({ Authorization: 'Bearer TOKEN' }, null, 2);
        const set = await js(
          `(() => { const h = [...document.querySelectorAll('.graphiql-editor-tool .CodeMirror')]` +
            `.find((c) => c.CodeMirror.getValue().includes('Authorization')); if (!h) return false; ` +
            `h.CodeMirror.setValue(${JSON.stringify(headerTemplate)}.replace('TOKEN', ` +
            `${JSON.stringify(token)})); return true; })()`,
        );
        const again = JSON.parse((await run()) || '{}');
        console.log(`${names[i]} with the login token: ${again.errors ? 'errors' : 'data'} (header set: ${set})`);
        if (again.errors || !set) failures += 1;
        await shot(`tab-${i}-with-token`);
      }
    }
    console.log(`screenshots in ${outDir}`);
    process.exitCode = failures ? 1 : 0;
  } finally {
    chrome.kill('SIGKILL');
    await chromeExited;
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
