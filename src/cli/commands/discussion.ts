/** Discussion admin commands: accounts and groups, run as the system (every admin check passes). */
import { SYSTEM } from '../../discussion/services';
import type { Command } from '../command';
import { positionals, rejectUnknownOptions } from '../command';

export const discussionCommands: Command[] = [
  {
    name: 'user:create',
    usage: 'user:create <username> [--admin]',
    summary: 'Create an account; the password comes from AGORA_PASSWORD or the first line of standard input.',
    needsDatabase: true,
    flags: ['admin'],
    async run(args, agora, io) {
      const [username] = positionals(args, 1, '<username>');
      rejectUnknownOptions(args, ['admin']);
      let password = io.env('AGORA_PASSWORD');
      if (password === undefined || password === '') password = (await io.readStdin()).split(/\r?\n/)[0] ?? '';
      if (password === '') {
        io.err('No password given: set AGORA_PASSWORD or pipe the password on standard input.');
        return 2;
      }
      const user = await agora!.services.discussion.users.create(SYSTEM, {
        username: username!,
        password,
        isAdmin: args.options.admin === 'true',
      });
      io.out(`Created ${user.isAdmin ? 'admin ' : ''}user ${user.username} (id ${user.id}).`);
      return 0;
    },
  },
  {
    name: 'user:ban',
    usage: 'user:ban <username>',
    summary: 'Ban an account: its tokens stop working and it can no longer log in.',
    needsDatabase: true,
    async run(args, agora, io) {
      const [username] = positionals(args, 1, '<username>');
      rejectUnknownOptions(args, []);
      const user = await agora!.services.discussion.users.ban(SYSTEM, username!);
      io.out(`Banned ${user.username}.`);
      return 0;
    },
  },
  {
    name: 'user:unban',
    usage: 'user:unban <username>',
    summary: 'Lift a ban.',
    needsDatabase: true,
    async run(args, agora, io) {
      const [username] = positionals(args, 1, '<username>');
      rejectUnknownOptions(args, []);
      const user = await agora!.services.discussion.users.unban(SYSTEM, username!);
      io.out(`Unbanned ${user.username}.`);
      return 0;
    },
  },
  {
    name: 'group:create',
    usage: 'group:create <path> [--description TEXT]',
    summary: 'Create a group such as tech or games.tabletop (shown as ~tech).',
    needsDatabase: true,
    async run(args, agora, io) {
      const [path] = positionals(args, 1, '<path>');
      rejectUnknownOptions(args, ['description']);
      const group = await agora!.services.discussion.groups.create(SYSTEM, {
        path: path!,
        description: args.options.description,
      });
      io.out(`Created group ~${group.path}.`);
      return 0;
    },
  },
  {
    name: 'counts:verify',
    usage: 'counts:verify [--fix]',
    summary:
      "Recount every post's votes, comments and label weights from their sources; report drift (exit 1), " +
      'set them with --fix.',
    needsDatabase: true,
    flags: ['fix'],
    async run(args, agora, io) {
      positionals(args, 0, '');
      rejectUnknownOptions(args, ['fix']);
      const fix = args.options.fix === 'true';
      const report = await agora!.services.discussion.counts.verify(SYSTEM, { fix });
      for (const d of report.drift)
        io.out(`${d.post}: stored ${JSON.stringify(d.stored)}, counted ${JSON.stringify(d.counted)}`);
      if (report.drifted > report.drift.length) io.out(`… and ${report.drifted - report.drift.length} more.`);
      io.out(
        `Checked ${report.topics} topics and ${report.comments} comments: ${report.drifted} with drifted ` +
          `counts${fix ? `, ${report.fixed} fixed` : ''}.`,
      );
      return report.drifted > 0 && !fix ? 1 : 0;
    },
  },
];
