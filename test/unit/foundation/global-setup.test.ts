/**
 * The integration project's global setup starts the test database in a temporary directory: when
 * no database can be started (a machine without Go, here a `mongod` that exits at once), the run
 * fails and that directory goes too (npm test leaves nothing outside the repository).
 */
import fs from 'node:fs';
import globalSetup from '../../setup/global-setup';

const saved = { ...process.env };
beforeEach(() => {
  delete process.env.MONGODB_URI;
  process.env.MONGOD_BIN = '/bin/false';
});
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

it('removes its temporary data directory when no database starts', async () => {
  const failure = await globalSetup().then(
    () => null,
    (err: Error) => err,
  );
  expect(failure?.message).toMatch(/mongod at \/bin\/false did not start/);
  // The message names the log in the data directory, which is gone by now.
  const dir = /\(see (\S+agora-test-db-[^/]+)\//.exec(failure!.message)?.[1];
  expect(dir).toBeDefined();
  expect(fs.existsSync(dir!)).toBe(false);
  expect(process.env.MONGODB_URI).toBeUndefined();
});
