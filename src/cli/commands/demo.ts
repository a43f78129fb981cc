/** `demo:seed`: writes the demo dataset (the one an empty embedded database gets at start). */
import type { Command } from '../command';
import { DEMO_ADMIN, DEMO_PASSWORD, DEMO_USERS, demoPresent, seedDemo } from '../../demo/seed';

export const demoCommands: Command[] = [
  {
    name: 'demo:seed',
    usage: 'demo:seed',
    summary:
      'Add the demo data (groups, users, topics, threaded comments, votes, labels, tags) unless it is already there.',
    needsDatabase: true,
    async run(_args, agora, io) {
      const deps = { services: agora!.services, db: agora!.db };
      if (await demoPresent(deps)) {
        io.out(`The demo data is already there (user ${DEMO_USERS[0]} exists); nothing to do.`);
        return 0;
      }
      const s = await seedDemo(deps);
      io.out(`Seeded ${s.groups} groups, ${s.users} users, ${s.topics} topics and ${s.comments} comments.`);
      io.out(
        `Demo accounts: ${DEMO_USERS.join(', ')} (password ${DEMO_PASSWORD}); admin: ` +
          `${DEMO_ADMIN.username} (password ${DEMO_ADMIN.password}).`,
      );
      return 0;
    },
  },
];
