/**
 * Agora's change to FerretDB 1.24's projection, compiled into the embedded build.
 *
 * Why: every document a `find` returns goes through FerretDB's projection, which deep-copies it
 * twice even when there is nothing to project (no projection, or one that only leaves fields out).
 * On a topic's 5,000 comments that copying was about a tenth of FerretDB's CPU.
 *
 * What, and why the answers cannot change:
 *   - With an empty projection a document is returned as it was read. FerretDB's projection of it
 *     is a copy with `_id` first and the other fields in order, which is what the document is:
 *     documents are read fresh from storage for each query and `_id` always comes first in them.
 *   - An exclusion projection removes fields from its private copy of the document instead of
 *     from a second copy of that copy; the first copy is not read again on that path.
 */
import { replaceOnce } from './ferretdb-source';

export const PROJECTION_ITERATOR_FILE = 'internal/handler/common/projection_iterator.go';
export const PROJECTION_FILE = 'internal/handler/common/projection.go';


export function patchProjectionIteratorGo(source: string): string {
  const from = '\t_, doc, err := iter.iter.Next()\n\tif err != nil {\n\t\treturn unused, nil, lazyerrors.Error(err)\n\t}\n';
  return replaceOnce(source, from, `${from}\n\tif iter.projection.Len() == 0 {\n\t\treturn unused, doc, nil // Agora: nothing to project (src/db/ferretdb-projection.ts)\n\t}\n`, PROJECTION_ITERATOR_FILE);
}

export function patchProjectionGo(source: string): string {
  return replaceOnce(
    source,
    '\tif !inclusion {\n\t\tprojected = docWithoutID.DeepCopy()\n\t}\n',
    '\tif !inclusion {\n\t\tprojected = docWithoutID // Agora: already a private copy (src/db/ferretdb-projection.ts)\n\t}\n',
    PROJECTION_FILE,
  );
}
