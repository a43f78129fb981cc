/** The shape of one command-line command; each area lists its commands in cli/commands/<area>.ts. */
import type { Agora } from '../server';

export class UsageError extends Error {}

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** The whole of standard input (empty when it is a terminal). */
  readStdin(): Promise<string>;
  /** The environment variable of that name (the CLI reads it through the config module's env). */
  env(name: string): string | undefined;
}

export interface ParsedArgs {
  positional: string[];
  /** --name VALUE or --name=VALUE; a flag without value is 'true'. */
  options: Record<string, string>;
}

export interface Command {
  name: string;
  usage: string;
  summary: string;
  /** Whether the command needs the database (and so the app's services). */
  needsDatabase: boolean;
  /** Options that take no value. */
  flags?: string[];
  /** Returns the exit code; throws UsageError for bad arguments (exit 2). */
  run(args: ParsedArgs, agora: Agora | undefined, io: CliIO): Promise<number>;
}

export function parseArgs(argv: string[], flags: string[] = []): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 2) {
        options[a.slice(2, eq)] = a.slice(eq + 1);
      } else {
        const name = a.slice(2);
        if (flags.includes(name)) options[name] = 'true';
        else {
          const v = argv[i + 1];
          if (v === undefined || v.startsWith('--')) throw new UsageError(`--${name} needs a value`);
          options[name] = v;
          i++;
        }
      }
    } else positional.push(a);
  }
  return { positional, options };
}

/** Exactly `count` positional arguments, else a usage error naming `what` is missing or the extra one. */
export function positionals(args: ParsedArgs, count: number, what: string): string[] {
  if (args.positional.length < count) throw new UsageError(`missing ${what}`);
  if (args.positional.length > count) throw new UsageError(`unexpected argument: ${args.positional[count]}`);
  return args.positional;
}

/** Refuses any `--option` not in `known`. */
export function rejectUnknownOptions(args: ParsedArgs, known: string[]): void {
  const unknown = Object.keys(args.options).filter((o) => !known.includes(o));
  if (unknown.length > 0) throw new UsageError(`unknown option: --${unknown[0]}`);
}
