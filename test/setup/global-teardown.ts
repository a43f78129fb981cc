import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const launched = globalThis.__agoraTestDatabase;
  if (!launched) return;
  await launched.db.stop();
  if (launched.dir) fs.rmSync(launched.dir, { recursive: true, force: true });
}
