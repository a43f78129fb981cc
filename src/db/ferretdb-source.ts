/** Editing FerretDB's source for Agora's build patches (ferretdb-build.ts). */

/**
 * Replaces the one occurrence of `from` in `source`. Anything else means the source is not the
 * one the patch was written for, and the build stops rather than compile a half-patched FerretDB.
 */
export function replaceOnce(source: string, from: string, to: string, file: string): string {
  if (source.split(from).length !== 2) throw new Error(`FerretDB source not as expected: no single ${JSON.stringify(from.trim())} in ${file}`);
  return source.replace(from, () => to);
}
