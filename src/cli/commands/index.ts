/** Every command of `npm run cli`. Each area adds its own list. */
import type { Command } from '../command';
import { dbCommands } from './db';
import { demoCommands } from './demo';
import { discussionCommands } from './discussion';
import { filesCommands } from './files';

export const commands: Command[] = [...dbCommands, ...demoCommands, ...discussionCommands, ...filesCommands];
