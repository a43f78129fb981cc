/**
 * Repeated request headers count with their first value (docs/files-api.md §2.1), as linx-server
 * and every Go client read them (`Header.Get`). Node joins repeated lines of most headers with
 * ", " (`Linx-Randomize: yes` + `Linx-Randomize: no` would read `"yes, no"`, two delete keys one
 * key `"a, b"`); this puts the first line back for every reader of `request.headers`, both REST
 * layers and GraphQL alike.
 */
import type { IncomingMessage } from 'node:http';

/** Headers whose repeated lines are one list by definition (proxies append to them): joined, as Node does. */
const LISTS = new Set([
  'cookie',
  'forwarded',
  'via',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
]);

export function keepFirstHeaderValues(raw: IncomingMessage): void {
  const lines = raw.rawHeaders;
  const headers = raw.headers;
  // Node keeps one key per header name: fewer keys than lines means some name came twice.
  if (lines.length / 2 === Object.keys(headers).length) return;
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i]!.toLowerCase();
    if (seen.has(name)) continue;
    seen.add(name);
    if (!LISTS.has(name) && typeof headers[name] === 'string') headers[name] = lines[i + 1]!;
  }
}
