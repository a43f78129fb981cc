/**
 * The benchmark's dataset is written in bulk from documents bench/seed.js computes the way the
 * services would (its header says how that is kept honest). Its check replays a small plan through
 * the real services and compares every document; it ran only when a dataset was built, so a field
 * the services gained (a topic's `commentPosts`) went unnoticed in the cached one. Run here, a
 * change of what the services store fails the suite until the seed stores it too (and its
 * DATASET.version moves, so cached datasets are built again).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { withDatabaseName } from '../../src/server';

// The built app (npm test builds before jest), as the benchmark uses it.
const seed = require('../../bench/seed.js') as {
  verifyAgainstServices(uri: string, log?: (m: string) => void): Promise<void>;
};

jest.setTimeout(120_000);

it("the bench dataset's documents are the ones the services write for the same events", async () => {
  const uri = withDatabaseName(process.env.MONGODB_URI!, `agora_seed_verify_${crypto.randomBytes(4).toString('hex')}`);
  const said: string[] = [];
  const scratch = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('agora-seed-verify-'));
  const before = scratch();
  await seed.verifyAgainstServices(uri, (m) => said.push(m));
  expect(said.join('\n')).toMatch(/^verified: \d+ events replayed .* give exactly the seeded documents/);
  // Its scratch data directory goes with it (npm test leaves nothing in /tmp).
  expect(scratch().filter((f) => !before.includes(f))).toEqual([]);
});
