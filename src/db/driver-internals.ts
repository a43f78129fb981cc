/**
 * The MongoDB driver's internal modules, for the two places that reach past its public API
 * (command-meter.ts, direct-command.ts). Each checks that what it uses is where it expects it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/** The internal module `rel` of the driver mongoose uses (not necessarily the top-level one). */
export function driverModule<T>(rel: string): T {
  const load = createRequire(__filename);
  const from = path.dirname(load.resolve('mongoose'));
  return load(load.resolve(`mongodb/lib/${rel}`, { paths: [from] })) as T;
}
