/** Every command of `npm run cli`. Each area adds its own list. */
import type { Command } from '../command';
import { dbCommands } from './db';

export const commands: Command[] = [...dbCommands];
