/** File-sharing admin commands: API keys (docs/files-api.md §10) and the expiry sweep (§11). */
import { Command, positionals, rejectUnknownOptions } from '../command';

export const filesCommands: Command[] = [
  {
    name: 'apikey:create',
    usage: 'apikey:create [--name <label>]',
    summary: 'Issue an API key for uploads and deletes; the key is printed once, alone on the last line.',
    needsDatabase: true,
    async run(args, agora, io) {
      positionals(args, 0, '');
      rejectUnknownOptions(args, ['name']);
      const created = await agora!.services.files.apiKeys.create(args.options.name ?? '');
      io.out(
        `Created API key ${created.id}${created.name ? ` (${created.name})` : ''}. It is shown only now; ` +
          `only its hash is stored:`,
      );
      io.out(created.key);
      return 0;
    },
  },
  {
    name: 'apikey:list',
    usage: 'apikey:list',
    summary: 'List API keys: id, label and creation time (never the key).',
    needsDatabase: true,
    async run(args, agora, io) {
      positionals(args, 0, '');
      rejectUnknownOptions(args, []);
      const keys = await agora!.services.files.apiKeys.list();
      if (keys.length === 0) {
        io.out('No API keys.');
        return 0;
      }
      io.out(['ID'.padEnd(24), 'CREATED'.padEnd(24), 'NAME'].join('  '));
      for (const k of keys) io.out([k.id.padEnd(24), k.createdAt.toISOString().padEnd(24), k.name].join('  '));
      return 0;
    },
  },
  {
    name: 'apikey:revoke',
    usage: 'apikey:revoke <id>',
    summary: 'Revoke an API key by id (effective on the next request).',
    needsDatabase: true,
    async run(args, agora, io) {
      const [id] = positionals(args, 1, '<id> (see apikey:list)');
      rejectUnknownOptions(args, []);
      if (!(await agora!.services.files.apiKeys.revoke(id))) {
        io.err(`error: no API key with id ${id}`);
        return 1;
      }
      io.out(`Revoked API key ${id}.`);
      return 0;
    },
  },
  {
    name: 'files:cleanup',
    usage: 'files:cleanup',
    summary: 'Delete every expired file now (bytes and metadata) and print how many.',
    needsDatabase: true,
    async run(args, agora, io) {
      positionals(args, 0, '');
      rejectUnknownOptions(args, []);
      const { maintenance } = agora!.services.files;
      const deleted = await maintenance.sweepExpired();
      await maintenance.collect(false);
      io.out(`Deleted ${deleted} expired file${deleted === 1 ? '' : 's'}.`);
      return 0;
    },
  },
];
