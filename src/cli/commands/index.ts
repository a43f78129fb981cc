/** Every command of `npm run cli`. Each area adds its own list. */
import type { Command } from '../command';
import { dbCommands } from './db';
import { filesCommands } from './files';

export const commands: Command[] = [...dbCommands, ...filesCommands];
