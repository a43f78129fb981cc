/**
 * Agora's change to FerretDB 1.24's object tracking, compiled into the embedded build.
 *
 * Why: FerretDB tracks every iterator it opens (one per document it walks while matching,
 * projecting and encoding a reply) in a pprof profile, and adding to a profile captures the
 * caller's stack. Profiled on a topic's 5,000 comments that stack capture was a quarter of
 * FerretDB's CPU. The profiles are only readable on FerretDB's debug endpoint, which the launcher
 * turns off (`--debug-addr=-`).
 *
 * What: Track and Untrack keep FerretDB's argument checks and its leak check (an object collected
 * without Untrack still panics, as before), without the profile. FerretDB's own functions stay in
 * the source under other names, unused.
 */
import { replaceOnce } from './ferretdb-source';

export const TRACKING_FILE = 'internal/util/resource/resource.go';
export const TRACKING_GO_FILE = 'internal/util/resource/agora_track.go';

export const TRACKING_GO_SOURCE = `// Code added by Agora's build of FerretDB (src/db/ferretdb-tracking.ts); see there for why.

package resource

import (
	"fmt"
	"runtime"
)

// Track makes obj panic when it is garbage-collected before Untrack is called.
func Track(obj any, token *Token) {
	checkArgs(obj, token)

	runtime.SetFinalizer(obj, func(obj any) {
		panic(fmt.Sprintf("%T has not been finalized", obj))
	})
}

// Untrack marks obj as properly closed.
func Untrack(obj any, token *Token) {
	checkArgs(obj, token)

	runtime.SetFinalizer(obj, nil)
}
`;

export function patchTrackingGo(source: string): string {
  for (const name of ['Track', 'Untrack']) {
    source = replaceOnce(source, `\nfunc ${name}(obj any, token *Token) {\n`, `\nfunc profiled${name}(obj any, token *Token) {\n`, TRACKING_FILE);
  }
  return source;
}
