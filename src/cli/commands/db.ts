import type { Command } from '../command';

export const dbCommands: Command[] = [
  {
    name: 'db:status',
    usage: 'db:status',
    summary: 'Show which database is in use and whether it answers.',
    needsDatabase: true,
    async run(_args, agora, io) {
      const ok = await agora!.db.ping();
      io.out(
        `database: ${agora!.services.runtime.databaseKind} (${agora!.db.name}) ${ok ? 'answers' : 'does not answer'}`,
      );
      return ok ? 0 : 1;
    },
  },
];
