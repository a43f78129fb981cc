/**
 * FILES_COMMIT_DELAY_MS through the server (src/files/insert-batcher.ts, wired to the upload gate in
 * src/files/index.ts): concurrent uploads' metadata goes in one insert, which waits for the uploads
 * still in flight and goes as soon as all of them are in; an upload alone never waits.
 */
import { PassThrough } from 'node:stream';
import { client, JSON_ACCEPT, type Res } from './helpers';
import { sleep } from '../../helpers/embedded';
import { watchingCommands } from '../../helpers/exchanges';
import { startTestServer, TestServer } from '../../helpers/server';

/** The longest delay the setting takes, far above what an upload here takes: waiting it out fails the tests. */
const DELAY_MS = 1000;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ FILES_COMMIT_DELAY_MS: String(DELAY_MS) });
});
afterAll(async () => {
  await s?.close();
});

/** The insert commands on the files collection that fn's work sends. */
async function fileInserts(fn: () => Promise<void>): Promise<number> {
  let inserts = 0;
  await watchingCommands(s, fn, (name, c) => {
    if (name === 'insert' && c.insert === 'files') inserts++;
  });
  return inserts;
}

it('concurrent uploads share one insert, sent as soon as the last of them is in', async () => {
  let released = 0;
  let answers: Res[] = [];
  const inserts = await fileInserts(async () => {
    // Each body's last bytes wait: every upload is admitted (before its body is read) before any
    // of them can reach its commit.
    const bodies = ['one', 'two', 'three', 'four'].map((n) => {
      const body = new PassThrough();
      body.write(`first half of ${n}, `);
      return { name: `delay-${n}.txt`, body };
    });
    const pending = bodies.map(({ name, body }) => client(s).put(`/upload/${name}`, body, JSON_ACCEPT));
    await sleep(300);
    released = performance.now();
    for (const { body } of bodies) body.end('second half');
    answers = await Promise.all(pending);
  });
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  const names = answers.map((a) => a.json<{ filename: string }>().filename);
  expect(new Set(names)).toEqual(new Set(['delay-one.txt', 'delay-two.txt', 'delay-three.txt', 'delay-four.txt']));
  expect(inserts).toBe(1);
  // Not held for the delay: the insert went when the fourth upload joined it.
  expect(performance.now() - released).toBeLessThan(DELAY_MS);
  for (const name of names) expect((await client(s).get(`/${name}`)).status).toBe(200);
});

it('an upload alone does not wait: one after another, each answered at once', async () => {
  const c = client(s);
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const res = await c.put(`/upload/alone-${i}.txt`, `alone ${i}`, JSON_ACCEPT);
    expect(res.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(DELAY_MS);
  }
});
