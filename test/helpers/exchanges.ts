/**
 * The commands a test server's app sends and the answers it gets while a piece of a test runs, in
 * order ("sent find topics", "answered find topics"): tests that prove which commands share a round
 * trip read them. Live events recorded before are written first, and those fn records are counted.
 */
import type { TestServer } from './server';

export async function exchangesOf(s: TestServer, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const label = (name: string, c: Record<string, unknown>) => `${name} ${String(c[name])}`;
  await watchingCommands(
    s,
    fn,
    (name, c) => seen.push(`sent ${label(name, c)}`),
    (name, c) => seen.push(`answered ${label(name, c)}`),
  );
  return seen;
}

type Told = (name: string, command: Record<string, unknown>) => void;

/**
 * Runs fn with `sent` (and `answered`) told of each command the app sends meanwhile: live events
 * recorded before are written first, and those fn records are written before it returns.
 */
export async function watchingCommands(
  s: TestServer,
  fn: () => Promise<unknown>,
  sent: Told,
  answered?: Told,
): Promise<void> {
  await s.agora.eventsWritten();
  const unwatch = s.agora.db.watchCommands(sent, answered);
  try {
    await fn();
    await s.agora.eventsWritten();
  } finally {
    unwatch();
  }
}

/** The commands sent after `answer` and before the next answer (sorted): those that shared its round trip. */
export function sentTogetherAfter(seen: readonly string[], answer: string): string[] {
  const rest = seen.slice(seen.indexOf(answer) + 1);
  return rest
    .slice(
      0,
      rest.findIndex((l) => l.startsWith('answered')),
    )
    .sort();
}
