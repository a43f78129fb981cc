#!/usr/bin/env node
/**
 * Checks GraphiQL the way a newcomer uses it, in headless Chromium with every non-loopback host
 * unresolvable (so nothing can load from a CDN): runs each example tab, then logs in, pastes the
 * token into the Authorization header and posts a comment. Screenshots go to the output folder.
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
      `--user-data-dir=${fs.mkdtempSync(path.join(os.tmpdir(), 'chrome-'))}`,
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      `--remote-debugging-port=${port}`,
      'about:blank',
    ],
    { stdio: 'ignore' },
  );
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
    const run = async () => {
      await js(`document.querySelector('.graphiql-execute-button').click()`);
      await sleep(2500);
      return js(`document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()`);
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
      const body = JSON.parse((await run()) || '{}');
      if (body.data?.login?.token) token = body.data.login.token;
      const needsToken = body.errors?.every((e) => e.extensions?.code === 'UNAUTHENTICATED');
      console.log(
        `${names[i]}: ${body.errors ? `errors (${body.errors.map((e) => e.extensions?.code).join(', ')})` : 'data'}`,
      );
      if (body.errors && !needsToken) failures += 1;
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
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
