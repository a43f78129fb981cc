// Agora's object tracking (third_party/ferretdb/README.md, docs/embedded-database.md).
//
// Why: FerretDB tracks every iterator it opens (one per document it walks while matching, projecting
// and encoding a reply) in a pprof profile, and adding to a profile captures the caller's stack.
// Profiled on a topic's 5,000 comments, that stack capture was a quarter of FerretDB's CPU. The
// profiles are only readable on FerretDB's debug endpoint, which Agora's launcher turns off.
//
// What: Track and Untrack keep FerretDB's argument checks and its leak check (an object collected
// without Untrack still panics), without the profile. Patch 0003 renames FerretDB's own functions to
// profiledTrack and profiledUntrack, unused.

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
