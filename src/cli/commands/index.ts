/** Every command of `npm run cli`. Each area adds its own list. */
import type { Command } from '../command';
import { dbCommands } from './db';
import { discussionCommands } from './discussion';
import { filesCommands } from './files';

export const commands: Command[] = [...dbCommands, ...discussionCommands, ...filesCommands];
