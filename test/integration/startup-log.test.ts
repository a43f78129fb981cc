/**
 * The start-up log says how downloads go out (sendfile(2) or through Node) and why
 * (src/storage/sendfile.ts, downloadPath), and when the idle memory trim cannot run
 * (src/core/idle-trim.ts: node started without --expose-gc).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NATIVE_PATH } from '../../src/storage/sendfile';
import { withDatabaseName } from '../../src/server';
import { baseEnv, startServerProcess } from '../helpers/child';
import { ensureBuilt } from '../helpers/dist';

jest.setTimeout(120_000);

let dataDir: string;
beforeAll(() => {
  ensureBuilt();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agora-startup-log-'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** What the server prints up to its Downloads line (the last of its start-up). */
async function startupOutput(extra: Record<string, string>, nodeArgs: string[] = []): Promise<string> {
  const uri = withDatabaseName(process.env.MONGODB_URI!, `agora_startlog_${crypto.randomBytes(4).toString('hex')}`);
  const server = await startServerProcess(baseEnv({ MONGODB_URI: uri, DATA_DIR: dataDir, ...extra }), 60_000, nodeArgs);
  try {
    for (let i = 0; i < 50 && !/Downloads: .*\n/.test(server.output()); i++)
      await new Promise((r) => setTimeout(r, 100));
    // The idle trim's line, if any, follows the Downloads line in the same tick.
    await new Promise((r) => setTimeout(r, 200));
    return server.output();
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

async function downloadsLine(extra: Record<string, string>): Promise<string> {
  const out = await startupOutput(extra);
  return /Downloads: (.*)\n/.exec(out)?.[1] ?? out;
}

it('names sendfile(2) when the module is built, and says why not otherwise', async () => {
  const built = process.platform === 'linux' && fs.existsSync(NATIVE_PATH);
  expect(await downloadsLine({})).toMatch(
    built ? /^sendfile\(2\), from the file to the socket/ : /^read and written through Node \(.+\)$/,
  );
  expect(await downloadsLine({ FILES_SENDFILE: 'false' })).toBe('read and written through Node (FILES_SENDFILE=false)');
  expect(await downloadsLine({ FILES_STORAGE: 'gridfs' })).toBe('streamed from GridFS (FILES_STORAGE=gridfs)');
});

it('says the idle memory trim is off when node runs without --expose-gc, and nothing with it', async () => {
  expect(await startupOutput({})).toMatch(/Idle memory trim: off \(node runs without --expose-gc/);
  const deployed = await startupOutput({}, ['--expose-gc']);
  expect(deployed).toMatch(/Downloads: /);
  expect(deployed).not.toMatch(/Idle memory trim/);
});
